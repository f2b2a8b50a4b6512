// First run behind a serving web host, with the real services, installer (npm, scripts off),
// compiler and sandbox: the host answers while the shipped packs are still being seeded, a run
// that needs one of them is told it is still being set up, progress goes out as events (and is
// repeated for a face that connects mid-way), and once seeding is done the same run works.
// The seeding is held at its start by a gate the test opens, so "during seeding" is certain.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractEvent } from '../../shared/contract/events.ts';
import { SHIPPED_PACKS, type ShippedPack } from '../platform/assets.ts';
import { createAppServices } from '../services/app-services.ts';
import { staticBuild, tempDir, type TempDir } from '../testing/test-support.ts';
import { startWebHost } from '../server/web-host.ts';
import { FIRST_RUN_MESSAGES, seedInBackground, stillSettingUp } from './background.ts';
import { EXAMPLE_CODE, EXAMPLE, runFirstRun } from './first-run.ts';
import { shippedPrecompiled, shippedTarball } from './shipped-tarballs.ts';

const UNREACHABLE = 'http://127.0.0.1:9/';
const pack = (dir: string): ShippedPack => SHIPPED_PACKS.find((p) => p.dir === dir)!;
const YAML = pack('sandbox-yaml');
const GEO = pack('geo');

let data: TempDir;
let statics: TempDir;
beforeAll(async () => {
  data = await tempDir('first-run-bg');
  statics = await staticBuild();
  // Built once per content (reused by later runs and by bundle-backend).
  await shippedPrecompiled();
}, 300_000);
afterAll(async () => {
  await data?.remove();
  await statics?.remove();
});

describe('first run in the background', () => {
  it('serves at once, tells a run that needs a seeding pack to wait, and runs it once seeded', async () => {
    const created = await createAppServices({ dataDir: data.path });
    if (!created.ok) throw new Error(created.message);
    const services = created.value;
    const events: ContractEvent[] = [];
    const unsubscribe = services.events.subscribe((event) => events.push(event));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const seeding = seedInBackground({
      services,
      packNames: [YAML.name, GEO.name],
      seed: (onProgress) =>
        runFirstRun({
          dataDir: data.path,
          tarball: async (p) => {
            await gate;
            return shippedTarball(p);
          },
          precompiled: shippedPrecompiled,
          registry: UNREACHABLE,
          packs: [YAML, GEO],
          onProgress,
        }),
    });
    const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, staticDir: statics.path, port: 0 });
    const call = async (method: string, body: unknown): Promise<unknown> => {
      const response = await fetch(`${host.origin}/api/rpc/${method}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return response.json();
    };
    const run = { code: EXAMPLE_CODE, packages: EXAMPLE.nodes[0]!.packages, timeoutMs: 10_000 };
    try {
      // The host answers while seeding has not even installed anything.
      expect(seeding.isRunning()).toBe(true);
      expect(await call('settings.get', {})).toEqual({ ok: true, value: { registry: 'https://registry.npmjs.org/', sessionAllowlist: [] } });
      expect(await call('code.run', run)).toEqual({ ok: false, code: 'busy', message: stillSettingUp(YAML.name) });
      expect(stillSettingUp(YAML.name)).toBe(
        '@nodetool-ai/sandbox-yaml is still being set up: the app is installing the packs it comes with on this first start. Run the node again in a moment.',
      );
      // A run that needs no seeding pack is not held up.
      expect(await call('code.run', { code: 'return 1 + 1;', packages: [] })).toMatchObject({ ok: true, value: { result: { ok: true, value: 2 } } });

      // A face that connects mid-way still learns that seeding runs (the step is repeated).
      const late = await new Promise<ContractEvent>((resolve) => {
        const stop = services.events.subscribe((event) => {
          stop();
          resolve(event);
        });
      });
      expect(late).toEqual({
        type: 'first-run-progress',
        state: 'running',
        message: FIRST_RUN_MESSAGES.step('installing 2 shipped packs from the bundled tarballs'),
      });

      open();
      const report = await seeding.done;
      expect(report).toEqual({
        ok: true,
        value: { state: 'done', installed: [YAML.name, GEO.name], workflow: 'Example - YAML and geo', precompiled: { entries: 1 } },
      });
      expect(seeding.isRunning()).toBe(false);
      const progress = events.filter((e) => e.type === 'first-run-progress').map((e) => (e.type === 'first-run-progress' ? `${e.state}: ${e.message}` : ''));
      expect([...new Set(progress)]).toEqual([
        `running: ${FIRST_RUN_MESSAGES.started}`,
        `running: ${FIRST_RUN_MESSAGES.step('installing 2 shipped packs from the bundled tarballs')}`,
        `running: ${FIRST_RUN_MESSAGES.step("preparing the packs' modules from the precompiled cache")}`,
        `running: ${FIRST_RUN_MESSAGES.checking}`,
        `done: ${FIRST_RUN_MESSAGES.done}`,
      ]);
      // The catalog was reloaded before "done", so every screen refreshes onto the seeded packs.
      const changed = events.findIndex((e) => e.type === 'catalog-changed');
      expect(events[changed]).toEqual({ type: 'catalog-changed', reason: 'reload', packCount: 2, moduleCount: 3 });
      expect(changed).toBeLessThan(events.findIndex((e) => e.type === 'first-run-progress' && e.state === 'done'));

      const after = await call('code.run', run);
      expect(after).toMatchObject({ ok: true, value: { result: { ok: true, value: 'Berlin → Paris: 877 km' } } });
    } finally {
      open();
      await seeding.done;
      seeding.close();
      unsubscribe();
      await host.close();
      await services.dispose();
    }
  }, 300_000);

  it('reports a seeding that failed as a failed step, and runs are then answered as usual', async () => {
    const dir = await tempDir('first-run-bg-fail');
    const created = await createAppServices({ dataDir: dir.path });
    if (!created.ok) throw new Error(created.message);
    const services = created.value;
    const events: ContractEvent[] = [];
    const unsubscribe = services.events.subscribe((event) => events.push(event));
    const seeding = seedInBackground({
      services,
      packNames: [YAML.name],
      // The YAML pack's tarball holds the geo pack: the install is refused.
      seed: (onProgress) => runFirstRun({ dataDir: dir.path, tarball: () => shippedTarball(GEO), registry: UNREACHABLE, packs: [YAML], onProgress }),
    });
    try {
      const report = await seeding.done;
      expect(report.ok).toBe(false);
      const last = events.at(-1);
      expect(last).toEqual({
        type: 'first-run-progress',
        state: 'failed',
        message: `The packs that come with the app could not be set up (install-failed): First run could not install the shipped packs: The tarball for ${YAML.name} holds ${GEO.name}. The app works without them; the next start tries again.`,
      });
      // No longer "being set up": the usual answer for a pack that is not installed.
      const result = await services.dispatcher.handle('code.run', { code: 'return 1;', packages: [{ specifier: YAML.name }] }, { face: 'test' });
      expect(result).toMatchObject({ ok: false, code: 'unknown-specifier' });
    } finally {
      seeding.close();
      unsubscribe();
      await services.dispose();
      await dir.remove();
    }
  }, 120_000);
});
