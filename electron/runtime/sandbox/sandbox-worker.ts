// Entry of one sandbox worker thread: the shared worker loop (shared/sandbox/hosting/kernel-worker-loop.ts)
// wired to worker_threads. What only a thread has is added here: the engine compiled from the
// registered asset, WASM calls of a run that comes with a plan answered by its dispatcher over
// this worker's own WASM lanes (wasm-plan.ts), and the pool's hold buffer (run-hold.ts), through
// which a long run is held, and short runs sent nested are taken synchronously at its interrupt
// polls. Workers exist because a guest's deep recursion on the main thread overflows the host
// stack (measured): here the stack is sized by `resourceLimits.stackSizeMb`.
//
// Bundling: the pool starts this file by URL relative to the pool module (see sandbox-pool.ts);
// a bundler must emit it as its own entry and the pool's `workerEntry` option points at it.

import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { KernelWorkerLoop, type KernelWorkerMessage } from '../../../shared/sandbox/hosting/kernel-worker-loop.ts';
import { parseToWorker, SandboxWorkerDataSchema, type ToWorker } from './messages.ts';

type RunMessage = Extract<ToWorker, { type: 'run' }>;
import { WasmLanes } from '../wasm/wasm-plan.ts';
import { compileEngineWasm } from './engine-wasm.ts';
import { runClock, type RunClockOptions } from './run-hold.ts';
import { answeredCount, awaitAnswered } from './answered-word.ts';

const port = parentPort;
if (!port) throw new Error('sandbox-worker.ts must run as a worker thread');

const data = SandboxWorkerDataSchema.safeParse(workerData);
const lanes = new WasmLanes(data.success ? data.data.wasmLanes : undefined);
// Where the pool holds this worker's long run while short runs use the cores (run-hold.ts).
const hold = data.success ? data.data.hold : undefined;
// Set by the pool while short work waits: a run that polls a lot then holds itself (run-hold.ts).
const pressure = data.success ? data.data.pressure : undefined;
const mail: RunClockOptions = { onMail: takeMail, ...(pressure ? { pressure } : {}) };
// Where the pool says it has handled an answer: the sandbox is restored after that (answered-word.ts).
const answered = data.success ? data.data.answered : undefined;
const answerWaitMs = data.success ? data.data.answerWaitMs : undefined;
/** Set while a run sent nested runs at a poll: its answer does not wait (the long run below it would). */
let atPoll = false;

const loop = new KernelWorkerLoop<RunMessage>({
  post: (message) => {
    if (!answered || atPoll || message.type !== 'done') return port.postMessage(message);
    const before = answeredCount(answered);
    port.postMessage(message);
    // The loop restores the sandbox when this returns: first let the host's thread send the answer on.
    awaitAnswered(answered, before, answerWaitMs);
  },
  peer: 'host',
  // The run's clock leaves out time the pool held it, or this thread ran a nested run.
  clock: () => runClock(hold, mail),
  dispatcherFor: (message) => (message.wasm ? lanes.dispatcherFor(message.wasm) : undefined),
  block: (ms) => lanes.busy && lanes.block(ms),
  // Nested runs get their own sandbox only where the pool can hold runs and ring this worker.
  nesting: hold !== undefined,
});

const receive = (message: KernelWorkerMessage<RunMessage> | undefined) => loop.receive(message);

/** The pool rang while a run computes: what it sent meanwhile is taken here, at the run's interrupt poll. */
function takeMail(): void {
  atPoll = true;
  try {
    for (let next = receiveMessageOnPort(port!); next; next = receiveMessageOnPort(port!)) {
      const message = parseToWorker(next.message);
      if (!loop.receiveAtPoll(message)) setImmediate(receive, message);
    }
  } finally {
    atPoll = false;
  }
}

// A worker whose engine cannot load fails here, before `ready`: the pool counts it as a boot failure.
await loop.boot(compileEngineWasm);
port.on('message', (raw: unknown) => loop.receive(parseToWorker(raw)));
