// Entry of one sandbox worker thread: the shared worker loop (shared/sandbox/hosting/kernel-worker-loop.ts)
// wired to worker_threads. What only a thread has is added here: the engine compiled from the
// registered asset, WASM calls of a run that comes with a plan answered by its dispatcher over
// this worker's own WASM lanes (wasm-plan.ts), and the pool's hold buffer (run-hold.ts), through
// which a long run is held, and short runs sent nested are taken synchronously at its interrupt
// polls; and a garbage collection once grown engine memories were let go. Workers exist because
// a guest's deep recursion on the main thread overflows the host stack (measured): `stackSizeMb`.
//
// Bundling: the pool starts this file by URL relative to the pool module (see sandbox-pool.ts);
// a bundler must emit it as its own entry and the pool's `workerEntry` option points at it.

import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { KernelWorkerLoop, type KernelWorkerMessage } from '../../../shared/sandbox/hosting/kernel-worker-loop.ts';
import { parseToWorker, SandboxWorkerDataSchema, type ToWorker } from './messages.ts';

type RunMessage = Extract<ToWorker, { type: 'run' }>;
import { WasmLanes } from '../wasm/wasm-plan.ts';
import { compileEngineWasm } from './engine-wasm.ts';
import { runClock, waitForRing, type RunClockOptions } from './run-hold.ts';
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

/**
 * This thread's garbage collection (the loop's `collect`): Node gives `gc` only behind a V8 flag,
 * so the flag is on while one new context reads it (the idiom of Node's own tests), then off
 * again; no context made later gets `gc`. Undefined if the flag cannot be set.
 */
function threadGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => void (gc as () => unknown)() : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
const collect = threadGc();

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
  // A nested run's WASM call is answered on a lane of this worker while its long run waits.
  answersWasmNow: true,
  // A nested run's capability call waits for the pool's answer, which it rings for.
  ...(hold ? { waitForMail: (ms: number) => waitForRing(hold, ms, takeMail) } : {}),
  // Nested runs get their own sandbox only where the pool can hold runs and ring this worker.
  nesting: hold !== undefined,
  ...(collect ? { collect } : {}),
});

const receive = (message: KernelWorkerMessage<RunMessage> | undefined) => loop.receive(message);

/** The pool rang while a run computes: what it sent meanwhile is taken here, at the run's interrupt poll. */
function takeMail(): void {
  // Also called inside a nested run waiting for its host answer (waitForMail): restored, not cleared.
  const was = atPoll;
  atPoll = true;
  try {
    for (let next = receiveMessageOnPort(port!); next; next = receiveMessageOnPort(port!)) {
      const message = parseToWorker(next.message);
      if (!loop.receiveAtPoll(message)) setImmediate(receive, message);
    }
  } finally {
    atPoll = was;
  }
}

// A worker whose engine cannot load fails here, before `ready`: the pool counts it as a boot failure.
await loop.boot(compileEngineWasm);
// Nested runs' WASM calls need a lane that is ready (wasm-plan.ts `warm`).
if (hold) lanes.warm();
port.on('message', (raw: unknown) => loop.receive(parseToWorker(raw)));
