// code.cancel over the real web host: a code.run started with a runId is stopped by code.cancel
// naming that id, and the run's own HTTP answer is the tagged `cancelled` result (not a hang until
// the 30 s deadline) and carries the logs written before the Stop; cancelling an id that is not running says so with cancelled: false; a
// malformed run id is a 400.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, REPO_ROOT, startFixtureHost, type FixtureHost } from '../testing/test-support.ts';

let app: FixtureHost;

beforeAll(async () => {
  app = await startFixtureHost([path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo')]);
});

afterAll(async () => {
  await app?.close();
});

const rpc = (method: string, body: unknown) =>
  raw(app.host.port, {
    method: 'POST',
    path: `/api/rpc/${method}`,
    headers: { Authorization: `Bearer ${app.host.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('code.cancel over HTTP', () => {
  it('a Stop that comes while the sandbox is still starting (the first run) ends the run before any code ran: cancelled, no logs', async () => {
    // Why a cancelled run can show no logs: the pool starts on the first run (over a second here,
    // measured), and the run waits in its queue until then; nothing of the code has run yet.
    const run = rpc('code.run', { code: 'console.log("never reached"); while (true) {}', packages: [], runId: 'run-cold-1' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await rpc('code.cancel', { runId: 'run-cold-1' })).json()).toEqual({ ok: true, value: { cancelled: true } });
    const body = (await run).json() as { ok: true; value: { result: unknown } };
    expect(body.value.result).toMatchObject({
      ok: false,
      code: 'cancelled',
      message: 'The run was stopped while it waited for the sandbox to be ready; none of its code ran.',
      logs: [],
    });
  });

  it('stops a running code.run by its runId; the run answers cancelled at once', async () => {
    // A finished run first: the sandbox is up, so this run's guest is running (and has logged) by
    // the time Stop comes.
    expect((await rpc('code.run', { code: 'return 1;', packages: [] })).json()).toMatchObject({ ok: true, value: { result: { ok: true, value: 1 } } });
    const t0 = performance.now();
    const run = rpc('code.run', { code: 'console.log("before the loop", 1); console.warn("still here"); while (true) {}', packages: [], runId: 'run-loop-1' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const cancel = await rpc('code.cancel', { runId: 'run-loop-1' });
    expect(cancel.status).toBe(200);
    expect(cancel.json()).toEqual({ ok: true, value: { cancelled: true } });
    const answered = await run;
    expect(answered.status).toBe(200);
    const body = answered.json() as { ok: true; value: { result: { ok: boolean; code: string; message: string; logs: unknown } } };
    expect(body.value.result).toMatchObject({ ok: false, code: 'cancelled', message: 'The run was stopped before it finished.' });
    // Nothing a user does is lost: what the run logged before Stop comes back with the cancelled result.
    expect(body.value.result.logs).toEqual([
      { level: 'log', text: 'before the loop 1' },
      { level: 'warn', text: 'still here' },
    ]);
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
