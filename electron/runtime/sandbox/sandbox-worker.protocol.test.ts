// The sandbox worker's side of the nesting protocol, spoken message by message to a real worker
// thread (issue 26 item 1): a run sent nested that arrives while the worker's run awaits a host call
// — the pool sent it while that run was still polling, and the host call crossed it — is given back
// untouched, never started beside the run; and the run's host call is still answered. Before, the
// worker ran it at once as if idle, and when it ended it forgot every waiting host call, the long
// run's included, so the long run never answered (it timed out).

import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { assetUrl } from '../../platform/assets.ts';
import { parseFromWorker, type FromWorker, type SandboxWorkerData, type ToWorker } from './messages.ts';
import { createHoldBuffer, createPressureBuffer } from './run-hold.ts';

const request = (code: string, grants: KernelRunRequest['grants'] = NO_GRANTS): KernelRunRequest => ({
  code,
  entries: {},
  modules: {},
  inputs: {},
  grants,
  timeoutMs: 10_000,
});

interface Thread {
  send(message: ToWorker): void;
  /** The next message from the worker that is not a log line. */
  next(): Promise<FromWorker>;
  close(): Promise<number>;
}

let threads: Thread[] = [];
afterEach(async () => {
  await Promise.all(threads.map((t) => t.close()));
  threads = [];
});

/** A sandbox worker thread as the pool starts one (with a hold buffer, so it takes nested runs), and its mail. */
async function startWorker(): Promise<Thread> {
  const entry = assetUrl('sandbox-worker');
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  const workerData: SandboxWorkerData = { wasmLanes: 1, hold: createHoldBuffer(), pressure: createPressureBuffer() };
  const worker = new Worker(bootstrap, { eval: true, workerData });
  const inbox: FromWorker[] = [];
  const waiters: ((message: FromWorker) => void)[] = [];
  worker.on('message', (raw: unknown) => {
    const message = parseFromWorker(raw);
    if (!message || message.type === 'log') return;
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  const thread: Thread = {
    send: (message) => worker.postMessage(message),
    next: () => {
      const queued = inbox.shift();
      return queued ? Promise.resolve(queued) : new Promise((resolve) => waiters.push(resolve));
    },
    close: () => worker.terminate(),
  };
  threads.push(thread);
  expect(await thread.next()).toEqual({ type: 'ready' });
  return thread;
}

describe('sandbox worker: a nested run that arrives while the run in progress awaits a host call', () => {
  it('is given back untouched, and the run gets its host answer and ends with it', async () => {
    const thread = await startWorker();
    thread.send({
      type: 'run',
      runId: 1,
      request: request('const value = await getSecret("TOKEN");\nreturn value + "!";', { ...NO_GRANTS, secrets: ['TOKEN'] }),
    });
    const call = await thread.next();
    expect(call).toMatchObject({ type: 'host-call', runId: 1, kind: 'capability', name: 'getSecret', args: ['TOKEN'] });
    // The pool's nested run, sent before it saw the host call: the worker is not at a poll.
    thread.send({ type: 'run', runId: 2, request: request('return 6 * 7;'), nested: true });
    expect(await thread.next()).toEqual({ type: 'requeue', runId: 2, nestable: true, notAtPoll: true });
    thread.send({ type: 'host-result', runId: 1, callId: (call as { callId: number }).callId, result: { ok: true, value: 'secret' } });
    expect(await thread.next()).toMatchObject({ type: 'done', runId: 1, healthy: true, result: { ok: true, value: 'secret!' } });
    // Idle again: the same run, sent as the pool sends a worker's next run, runs as usual.
    thread.send({ type: 'run', runId: 2, request: request('return 6 * 7;') });
    expect(await thread.next()).toMatchObject({ type: 'done', runId: 2, result: { ok: true, value: 42 } });
  });

  it("answers a host call only for the run that made it: a stale answer carrying another run's id is not delivered", async () => {
    const thread = await startWorker();
    thread.send({ type: 'run', runId: 7, request: request('return await getSecret("A");', { ...NO_GRANTS, secrets: ['A'] }) });
    const call = (await thread.next()) as Extract<FromWorker, { type: 'host-call' }>;
    thread.send({ type: 'host-result', runId: 6, callId: call.callId, result: { ok: true, value: 'for another run' } });
    thread.send({ type: 'host-result', runId: 7, callId: call.callId, result: { ok: true, value: 'mine' } });
    expect(await thread.next()).toMatchObject({ type: 'done', runId: 7, result: { ok: true, value: 'mine' } });
  });
});
