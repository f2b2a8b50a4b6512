// code.cancel over the real web host: a code.run started with a runId is stopped by code.cancel
// naming that id, and the run's own HTTP answer is the tagged `cancelled` result (not a hang until
// the 30 s deadline); cancelling an id that is not running says so with cancelled: false; a
// malformed run id is a 400.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../services/app-services.ts';
import { fixtureDataDir, raw, REPO_ROOT, staticBuild, startAppHost, type TempDir } from '../testing/test-support.ts';
import type { WebHost } from './web-host.ts';

let data: TempDir;
let site: TempDir;
let services: AppServices;
let host: WebHost;

beforeAll(async () => {
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  site = await staticBuild();
  ({ services, host } = await startAppHost(data.path, site.path));
});

afterAll(async () => {
  await host?.close();
  await services?.dispose();
  await data?.remove();
  await site?.remove();
});

const rpc = (method: string, body: unknown) =>
  raw(host.port, { method: 'POST', path: `/api/rpc/${method}`, headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('code.cancel over HTTP', () => {
  it('stops a running code.run by its runId; the run answers cancelled at once', async () => {
    const t0 = performance.now();
    const run = rpc('code.run', { code: 'while (true) {}', packages: [], runId: 'run-loop-1' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const cancel = await rpc('code.cancel', { runId: 'run-loop-1' });
    expect(cancel.status).toBe(200);
    expect(cancel.json()).toEqual({ ok: true, value: { cancelled: true } });
    const answered = await run;
    expect(answered.status).toBe(200);
    const body = answered.json() as { ok: true; value: { result: { ok: boolean; code: string; message: string } } };
    expect(body.value.result).toMatchObject({ ok: false, code: 'cancelled', message: 'The run was stopped before it finished.' });
    expect(performance.now() - t0).toBeLessThan(10_000);
    // The id is free again, and the app still runs code.
    const again = await rpc('code.run', { code: 'return 2 + 3;', packages: [], runId: 'run-loop-1' });
    expect((again.json() as { value: { result: unknown } }).value.result).toMatchObject({ ok: true, value: 5 });
  });

  it('says cancelled: false for an id that is not running, and refuses a malformed id', async () => {
    expect((await rpc('code.cancel', { runId: 'nothing-here' })).json()).toEqual({ ok: true, value: { cancelled: false } });
    const bad = await rpc('code.cancel', { runId: '../x' });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ ok: false, code: 'invalid-request', message: 'code.cancel: runId: a run id is 1 to 64 letters, digits, "-" or "_"' });
  });
});
