// The web host owns what it opened: close() ends open SSE streams (their hub subscriptions go
// with them), drops keep-alive sockets and stops listening, and the app services' dispose()
// stops the sandbox and WASM worker pools a run started. Checked on Node's own resource list.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppServices } from '../services/app-services.ts';
import { startWebHost } from './web-host.ts';
import { fixtureDataDir, REPO_ROOT } from '../testing/test-support.ts';

// Pool workers are unref'd, so Node lists them by their message ports.
const workers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Worker' || kind === 'MessagePort').length;

describe('web host lifecycle', () => {
  it('close() ends SSE streams and stops listening; dispose() stops the worker pools', async () => {
    const data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
    const before = workers();
    try {
      const created = await createAppServices({ dataDir: data.path });
      if (!created.ok) throw new Error(created.message);
      const services = created.value;
      const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
      const auth = { Authorization: `Bearer ${host.token}` };

      const run = await fetch(`${host.origin}/api/rpc/code.run`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          code: 'import { add } from "@acme/geo/simplify-wasm"; return await add(1, 2);',
          packages: [{ specifier: '@acme/geo/simplify-wasm' }],
        }),
      });
      expect(((await run.json()) as { value: { result: { value: unknown } } }).value.result.value).toBe(3);
      expect(workers()).toBeGreaterThan(before);

      const stream = await fetch(`${host.origin}/api/events`, { headers: auth });
      const reader = stream.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(': connected\n\n');
      expect(services.events.listenerCount).toBe(1);

      await host.close();
      // The stream ends (done or aborted), never hangs.
      const end = await reader.read().then(
        (r) => r.done,
        () => true,
      );
      expect(end).toBe(true);
      expect(services.events.listenerCount).toBe(0);
      await expect(fetch(`${host.origin}/`)).rejects.toThrow();

      await services.dispose();
      for (let i = 0; i < 100 && workers() > before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(workers()).toBe(before);
    } finally {
      await data.remove();
    }
  }, 60_000);
});
