// The shared kernel-worker loop (shared/sandbox/hosting/kernel-worker-loop.ts) driven in this thread, as
// the browser worker wires it (no holds, no nesting, calls to the "page"), through a fake port: what
// the thread tests (sandbox-worker.protocol.test.ts) and the Chromium e2e cannot reach — messages
// that cannot be posted, runs before boot, a failed boot. It lives here, not beside the loop,
// because the engine binary is read with node:fs (engine-wasm.ts), which shared/ may not import.

import { describe, expect, it, vi } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { COLLECT_AFTER_GROWN_BYTES, KernelWorkerLoop, type KernelRunMessage } from '../../../shared/sandbox/hosting/kernel-worker-loop.ts';
import type { FromKernelWorker } from '../../../shared/sandbox/hosting/kernel-worker-messages.ts';
import { SYSTEM_CLOCK } from '../../../shared/sandbox/kernel/system-clock.ts';
import { compileEngineWasm } from './engine-wasm.ts';

const request = (code: string, grants = NO_GRANTS): KernelRunRequest => ({ code, entries: {}, modules: {}, inputs: {}, grants, timeoutMs: 10_000 });

/** A loop over a fake port: `posted` is what reached the host; `refuse` says which messages cannot be cloned. */
function harness(refuse: (message: FromKernelWorker) => boolean = () => false, collect?: () => void) {
  const posted: FromKernelWorker[] = [];
  const waiters: (() => void)[] = [];
  const loop = new KernelWorkerLoop<KernelRunMessage>({
    ...(collect ? { collect } : {}),
    post: (message) => {
      if (refuse(message)) throw new DOMException(`${message.type} could not be cloned.`, 'DataCloneError');
      posted.push(structuredClone(message));
      for (const wake of waiters.splice(0)) wake();
    },
    peer: 'page',
    clock: () => SYSTEM_CLOCK,
  });
  /** The first message posted so far (or later) that matches. */
  const posts = async <T extends FromKernelWorker['type']>(type: T): Promise<Extract<FromKernelWorker, { type: T }>> => {
    for (;;) {
      const found = posted.find((message) => message.type === type);
      if (found) return found as Extract<FromKernelWorker, { type: T }>;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { loop, posted, posts };
}

describe('kernel worker loop', () => {
  it('drops a run sent before it booted, then posts ready and answers runs with their logs streamed', async () => {
    const { loop, posted, posts } = harness();
    loop.receive({ type: 'run', runId: 1, request: request('return 1;') });
    expect(loop.booted).toBe(false);
    await loop.boot(compileEngineWasm);
    expect(posted).toEqual([{ type: 'ready' }]);
    loop.receive({ type: 'run', runId: 2, request: request('console.log("hi");\nreturn 6 * 7;') });
    const done = await posts('done');
    expect(done).toMatchObject({ runId: 2, healthy: true, result: { ok: true, value: 42, logs: [{ level: 'log', text: 'hi' }] } });
    expect(posted.map((message) => message.type)).toEqual(['ready', 'log', 'done']);
  });

  it('answers a host call whose arguments cannot be posted with invalid-data naming the page, and the run goes on', async () => {
    const { loop, posts } = harness((message) => message.type === 'host-call');
    await loop.boot(compileEngineWasm);
    const code = 'try { await getSecret("K"); return "answered"; } catch (e) { return e.code + " | " + e.message; }';
    loop.receive({ type: 'run', runId: 1, request: request(code, { ...NO_GRANTS, secrets: ['K'] }) });
    const done = await posts('done');
    expect(done.result).toMatchObject({
      ok: true,
      value: 'invalid-data | The arguments of getSecret could not be passed to the page (host-call could not be cloned.).',
    });
  });

  it('answers result-invalid, with the logs and receipt, when the done message cannot be posted', async () => {
    let refused = 0;
    const { loop, posts } = harness((message) => message.type === 'done' && message.result.ok && ++refused === 1);
    await loop.boot(compileEngineWasm);
    loop.receive({ type: 'run', runId: 3, request: request('console.log("kept");\nreturn 1;') });
    const done = await posts('done');
    expect(refused).toBe(1);
    expect(done).toMatchObject({
      runId: 3,
      healthy: true,
      result: {
        ok: false,
        code: 'result-invalid',
        message: "The code's result could not be passed out of the sandbox (done could not be cloned.).",
        logs: [{ level: 'log', text: 'kept' }],
      },
    });
    expect(done.result.receipt.wallMs).toBeGreaterThanOrEqual(0);
  });

  it('asks for a run again in full when it relies on a source it does not keep', async () => {
    const { loop, posted } = harness();
    await loop.boot(compileEngineWasm);
    const run = request('return 1;');
    const module = {
      moduleId: 'js:a',
      kind: 'js',
      packName: 'a',
      packVersion: '1.0.0',
      displayName: 'a',
      source: '',
      imports: {},
      digest: 'a'.repeat(64),
    } as const;
    loop.receive({ type: 'run', runId: 4, request: { ...run, modules: { 'js:a': { ...module } } }, sources: { 'js:a': -9 } });
    expect(posted.at(-1)).toEqual({ type: 'resend', runId: 4 });
  });

  it('refuses a second run of its own while one is in progress (hosts send those only to an idle worker)', async () => {
    const { loop, posts } = harness();
    await loop.boot(compileEngineWasm);
    loop.receive({ type: 'run', runId: 5, request: request('return await getSecret("K");', { ...NO_GRANTS, secrets: ['K'] }) });
    const call = await posts('host-call');
    expect(() => loop.receive({ type: 'run', runId: 6, request: request('return 2;') })).toThrow('kernel worker: run 6 arrived while run 5 was in progress');
    loop.receive({ type: 'host-result', runId: 5, callId: call.callId, result: { ok: true, value: 'v' } });
    expect((await posts('done')).result).toMatchObject({ ok: true, value: 'v' });
  });

  it('rejects boot, posting nothing, when the engine cannot be compiled', async () => {
    const { loop, posted } = harness();
    await expect(loop.boot(() => WebAssembly.compile(new Uint8Array([0, 1, 2, 3])))).rejects.toThrow(WebAssembly.CompileError);
    expect(posted).toEqual([]);
  });

  it('collects garbage after a run whose engine memory grew past the threshold was let go, and not after runs that grew none', async () => {
    let collections = 0;
    const { loop, posted, posts } = harness(undefined, () => collections++);
    await loop.boot(compileEngineWasm);
    const grow = `const a = new Uint8Array(${COLLECT_AFTER_GROWN_BYTES + (24 << 20)}); a.fill(7); return a.length;`;
    loop.receive({ type: 'run', runId: 1, request: request('return 1;') });
    await posts('done');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(collections).toBe(0);
    loop.receive({ type: 'run', runId: 2, request: request(grow) });
    await vi.waitFor(() => expect(posted.filter((m) => m.type === 'done')).toHaveLength(2), { timeout: 20_000 });
    await vi.waitFor(() => expect(collections).toBe(1), { timeout: 20_000 });
    expect(posted.filter((m) => m.type === 'done').map((m) => m.type === 'done' && m.result.ok)).toEqual([true, true]);
    loop.receive({ type: 'run', runId: 3, request: request('return 3;') });
    await vi.waitFor(() => expect(posted.filter((m) => m.type === 'done')).toHaveLength(3), { timeout: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(collections).toBe(1);
  });
});
