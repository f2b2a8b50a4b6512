// Entry of one sandbox worker thread. It compiles quickjs-ng once, then runs one invocation at a
// time with the shared kernel; capability and WASM calls are forwarded to the main thread, which
// owns the handlers. Workers exist because a guest's deep recursion on the main thread overflows
// the host stack (measured): here the stack is sized by `resourceLimits.stackSizeMb`.
//
// Bundling: the pool starts this file by URL relative to the pool module (see sandbox-pool.ts);
// a bundler must emit it as its own entry and the pool's `workerEntry` option points at it.

import { parentPort } from 'node:worker_threads';
import { loadQuickJsNg } from '../../../shared/sandbox/engine.ts';
import { runKernel } from '../../../shared/sandbox/kernel.ts';
import type { HostCallResult } from '../../../shared/protocol/run.ts';
import { parseToWorker, type FromWorker } from './messages.ts';

const port = parentPort;
if (!port) throw new Error('sandbox-worker.ts must run as a worker thread');

const engine = await loadQuickJsNg();
const waiting = new Map<number, (result: HostCallResult) => void>();
let nextCallId = 1;

function post(message: FromWorker): void {
  port!.postMessage(message);
}

port.on('message', (raw: unknown) => {
  const message = parseToWorker(raw);
  if (!message) return;
  if (message.type === 'host-result') {
    const resolve = waiting.get(message.callId);
    waiting.delete(message.callId);
    resolve?.(message.result as HostCallResult);
    return;
  }
  const { runId, request } = message;
  void runKernel(request, {
    engine,
    now: () => performance.now(),
    hostCall: (kind, name, args) =>
      new Promise<HostCallResult>((resolve) => {
        const callId = nextCallId++;
        waiting.set(callId, resolve);
        post({ type: 'host-call', runId, callId, kind, name, args: [...args] });
      }),
  }).then((outcome) => {
    post({ type: 'done', runId, result: outcome.result, healthy: outcome.healthy });
  });
});

post({ type: 'ready' });
