// Bench section `web-host`: what the HTTP face costs over calling the dispatcher directly, in the
// same run — a small contract call (settings.get), a catalog read (catalog.summaries), a module
// delivery, and a Code node run (code.run) where the transport should vanish in the run's cost.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAppServices } from '../../electron/services/app-services.ts';
import { fixtureDataDir } from '../../electron/testing/test-support.ts';
import { startWebHost } from '../../electron/server/web-host.ts';
import { measure, printRatio, printTable, type BenchSection } from './harness.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const webHostSection: BenchSection = {
  name: 'web-host',
  async run() {
    const data = await fixtureDataDir(path.join(REPO, 'fixtures/discovery/good/node_modules/@acme/geo'));
    const created = await createAppServices({ dataDir: data.path });
    if (!created.ok) throw new Error(created.message);
    const services = created.value;
    const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
    try {
      const headers = { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' };
      const viaHttp = async (method: string, body: unknown) => {
        const res = await fetch(`${host.origin}/api/rpc/${method}`, { method: 'POST', headers, body: JSON.stringify(body) });
        const json = (await res.json()) as { ok: boolean };
        if (!json.ok) throw new Error(`${method} failed`);
      };
      const direct = async (method: string, body: unknown) => {
        const result = await services.dispatcher.handle(method, body, { face: 'test' });
        if (!result.ok) throw new Error(`${method} failed`);
      };
      const run = { code: 'import { add } from "@acme/geo/simplify-wasm"; return await add(1, 2);', packages: [{ specifier: '@acme/geo/simplify-wasm' }] };
      const moduleId = services.catalog.summaries().find((m) => m.specifier === '@acme/geo')!.moduleId!;

      const rows = [
        await measure('settings.get direct', 300, () => direct('settings.get', {}), 20),
        await measure('settings.get over HTTP', 300, () => viaHttp('settings.get', {}), 20),
        await measure('catalog.summaries direct', 300, () => direct('catalog.summaries', {}), 20),
        await measure('catalog.summaries over HTTP', 300, () => viaHttp('catalog.summaries', {}), 20),
        await measure(
          'module delivery over HTTP',
          300,
          async () => {
            const res = await fetch(`${host.origin}/api/sandbox-modules/${moduleId}`, { headers });
            await res.arrayBuffer();
          },
          20,
        ),
        await measure('code.run direct', 30, () => direct('code.run', run), 3),
        await measure('code.run over HTTP', 30, () => viaHttp('code.run', run), 3),
      ];
      printTable('web host: HTTP face vs direct dispatcher', rows);
      const [sd, sh, cd, ch, , rd, rh] = rows;
      printRatio('settings.get HTTP/direct', sh!, sd!);
      printRatio('catalog.summaries HTTP/direct', ch!, cd!);
      printRatio('code.run HTTP/direct', rh!, rd!, '≈1× (transport negligible next to a run)');
    } finally {
      await host.close();
      await services.dispose();
      await data.remove();
    }
  },
};
