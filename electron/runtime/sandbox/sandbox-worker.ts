// Entry of one sandbox worker thread. It compiles quickjs-ng once, then runs one invocation at a
// time with the shared kernel, each in a sandbox in the state no run has touched — engine
// instance, runtime and hardened context, restored to their image from before any run after each
// run (shared/sandbox/sandbox-supply.ts: a reused engine let a run read the previous run's memory).
// Capability calls are forwarded to the main thread, which owns the handlers; WASM calls
// of a run that comes with a plan are answered here, by the run's dispatcher over this worker's
// own WASM lanes (wasm-plan.ts), and otherwise forwarded too. Workers exist because a guest's deep
// recursion on the main thread overflows the host stack (measured): here the stack is sized by
// `resourceLimits.stackSizeMb`.
//
// While a run computes, the pool may send a short run to be run nested at its interrupt polls
// (`runNested`): taken from the port synchronously, run to its end in a second sandbox, the long
// run waiting meanwhile (kernel-host-core.ts explains when). A worker never starts a second run
// while one is in progress except there: a nested run that arrives through the event loop (its
// run stopped polling to await a host call or a WASM lane) is given back at once, and host calls
// waiting for an answer are kept per run, so nothing another run does can lose them.
//
// Bundling: the pool starts this file by URL relative to the pool module (see sandbox-pool.ts);
// a bundler must emit it as its own entry and the pool's `workerEntry` option points at it.

import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { SandboxSupply, type SuppliedSandbox } from '../../../shared/sandbox/sandbox-supply.ts';
import { runNeedsWasm, runPrepared, runPreparedNow, type KernelOutcome } from '../../../shared/sandbox/kernel.ts';
import { emptyReceipt, type HostCallResult, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { parseToWorker, SandboxWorkerDataSchema, type FromWorker } from './messages.ts';
import type { WasmDispatcher } from '../../../shared/sandbox/wasm-dispatcher.ts';
import { WasmLanes } from '../wasm/wasm-plan.ts';
import { compileEngineWasm } from './engine-wasm.ts';
import { runClock } from './run-hold.ts';
import { KeptSources } from '../../../shared/sandbox/source-cache.ts';

const port = parentPort;
if (!port) throw new Error('sandbox-worker.ts must run as a worker thread');

const data = SandboxWorkerDataSchema.safeParse(workerData);
const lanes = new WasmLanes(data.success ? data.data.wasmLanes : undefined);
// Where the pool holds this worker's long run while short runs use the cores (run-hold.ts).
const hold = data.success ? data.data.hold : undefined;
// Set by the pool while short work waits: a run that polls a lot then holds itself (run-hold.ts).
const pressure = data.success ? data.data.pressure : undefined;
const compiled = compileEngineWasm();
const sandboxes = new SandboxSupply(() => compiled);
// Nested runs' own sandbox (see `runNested`): only where the pool can hold runs and ring this worker.
const nestedSandboxes = hold ? new SandboxSupply(() => compiled) : undefined;
// A worker whose engine cannot load fails here, before `ready`: the pool counts it as a boot failure.
await sandboxes.prepare();
/** Module sources this worker keeps, so runs need not carry them again (source-cache.ts). */
const kept = new KeptSources();
/** Host calls waiting for main's answer, by call id, with the run that made them. */
const waiting = new Map<number, { readonly runId: number; readonly resolve: (result: HostCallResult) => void }>();
let nextCallId = 1;
/** The run in progress, from its start until its answer is posted: none other starts meanwhile (nested runs run at its polls). */
let current: number | undefined;

/** Hand a waiting call its answer (the call must be the run's own). */
function answerCall(runId: number, callId: number, result: HostCallResult): void {
  const call = waiting.get(callId);
  if (!call || call.runId !== runId) return;
  waiting.delete(callId);
  call.resolve(result);
}

/** Post to main. A message that cannot be cloned becomes a tagged failure at once, never silence. */
function post(message: FromWorker): void {
  try {
    port!.postMessage(message);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (message.type === 'done') {
      const { logs, receipt } = message.result;
      port!.postMessage({
        ...message,
        result: { ok: false, code: 'result-invalid', message: `The code's result could not be passed out of the sandbox (${why}).`, logs, receipt },
      } satisfies FromWorker);
    } else if (message.type === 'host-call') {
      answerCall(message.runId, message.callId, {
        ok: false,
        code: 'invalid-data',
        message: `The arguments of ${message.name} could not be passed to the host (${why}).`,
      });
    } else throw error;
  }
}

function onMessage(raw: unknown): void {
  const message = parseToWorker(raw);
  // `init` is the browser worker's (it is told where its engine is); a thread compiles its own.
  if (!message || message.type === 'init') return;
  if (message.type === 'host-result') return answerCall(message.runId, message.callId, message.result as HostCallResult);
  if (!kept.fill(message.request, message.sources)) return post({ type: 'resend', runId: message.runId });
  if (current !== undefined) {
    // Only a run sent nested can arrive while a run is in progress (the pool sends a run of its own
    // only to an idle worker), and here it arrived outside a poll: the run in progress awaits a
    // host call or a WASM lane. It is given back untouched, to run elsewhere or nested later.
    if (!message.nested) throw new Error(`sandbox-worker: run ${message.runId} arrived while run ${current} was in progress`);
    post({ type: 'requeue', runId: message.runId, nestable: true, notAtPoll: true });
    return;
  }
  // A run sent nested that arrives here, with no run in progress, found this worker idle: it runs
  // as usual (the pool made it this worker's next run when the run before answered).
  const dispatcher = message.wasm ? lanes.dispatcherFor(message.wasm) : undefined;
  void runOnce(message.runId, message.request, dispatcher);
}

port.on('message', onMessage);

/**
 * The pool rang while a run computes (run-hold.ts): what it sent meanwhile is taken here, at the
 * run's interrupt poll. A run sent nested runs now, to its end; host answers are delivered (their
 * runs see them once the event loop turns); anything else waits for the event loop.
 */
function takeMail(): void {
  for (let next = receiveMessageOnPort(port!); next; next = receiveMessageOnPort(port!)) {
    const message = parseToWorker(next.message);
    if (message?.type === 'run' && message.nested) {
      if (kept.fill(message.request, message.sources)) runNested(message.runId, message.request);
      else post({ type: 'resend', runId: message.runId });
    } else if (message?.type === 'host-result') onMessage(next.message);
    else setImmediate(onMessage, next.message);
  }
}

/**
 * A nested run's budget: past either, it is given back (to run as usual, not nested). About 1.5 ms
 * of guest code: a short run makes hardly any polls, and one that spins wastes little before it is
 * given back.
 */
const NESTED_POLLS = 10;
const NESTED_MS = 20;

/**
 * Runs a run sent nested, to its end, inside the current run's interrupt poll, in a sandbox of its
 * own (restored like the other after it; no run sees another's). It may make no host call: at its
 * first it gives up, as it does past its budget, and the pool runs it again as usual — nothing of
 * the try has left the sandbox (its console entries are kept, not streamed). An outcome that
 * depends on this thread's stack (a stack overflow, with the long run's frames below it) is given
 * back too, so running nested never changes a result.
 */
function runNested(runId: number, request: KernelRunRequest): void {
  const supplied = runNeedsWasm(request) ? undefined : nestedSandboxes?.takeNow(false);
  if (!supplied) {
    post({ type: 'requeue', runId, nestable: !runNeedsWasm(request) });
    return;
  }
  let givenUp = false;
  let polls = 0;
  const start = performance.now();
  const now = () => performance.now();
  let outcome: KernelOutcome | undefined;
  try {
    outcome = runPreparedNow(supplied.sandbox, request, {
      now,
      timer: () => () => undefined,
      hostCall: () => {
        givenUp = true;
        return new Promise<HostCallResult>(() => undefined);
      },
      checkpoint: () => (givenUp ||= ++polls > NESTED_POLLS || now() - start > NESTED_MS),
    });
  } catch {
    outcome = undefined;
  }
  const overflowed = !outcome?.healthy || (!outcome.result.ok && outcome.result.code === 'stack-overflow');
  if (!outcome || givenUp || overflowed) post({ type: 'requeue', runId, nestable: false });
  else post({ type: 'done', runId, result: outcome.result, healthy: true });
  nestedSandboxes!.retire(supplied);
}

async function runOnce(runId: number, request: KernelRunRequest, dispatcher: WasmDispatcher | undefined): Promise<void> {
  current = runId;
  const withWasm = runNeedsWasm(request);
  let supplied: SuppliedSandbox;
  try {
    supplied = await sandboxes.take(withWasm, request);
  } catch (error) {
    dispatcher?.close();
    const message = `The sandbox engine could not start: ${error instanceof Error ? error.message : String(error)}`;
    current = undefined;
    // Unhealthy: the pool replaces this thread, whose next engine may fail the same way.
    post({ type: 'done', runId, result: { ok: false, code: 'sandbox-crashed', message, logs: [], receipt: emptyReceipt() }, healthy: false });
    return;
  }
  const outcome = await runPrepared(supplied.sandbox, request, {
    // The run's clock leaves out time the pool held it, or this thread ran a nested run, so
    // neither ever changes its result.
    ...runClock(hold, { onMail: takeMail, ...(pressure ? { pressure } : {}) }),
    // Streamed as kept: if the pool's watchdog must terminate this thread, main has the logs so far.
    onLog: (entry) => post({ type: 'log', runId, entry }),
    hostCall: (kind, name, args) => {
      if (kind === 'wasm' && dispatcher) return dispatcher.bridge(name, args[0], args[1]);
      return new Promise<HostCallResult>((resolve) => {
        const callId = nextCallId++;
        waiting.set(callId, { runId, resolve });
        post({ type: 'host-call', runId, callId, kind, name, args: [...args] });
      });
    },
    // Nothing but WASM in flight: wait for a lane's reply on a futex rather than an event-loop turn.
    block: (ms) => waiting.size === 0 && lanes.busy && lanes.block(ms),
  });
  // Calls still running on a lane are stopped (their lane is replaced) before the next run, and
  // this run's main-thread calls still unanswered are forgotten (their answers would find no run).
  dispatcher?.close();
  for (const [callId, call] of waiting) if (call.runId === runId) waiting.delete(callId);
  current = undefined;
  // Once the answer is on its way, the sandbox goes back to its image from before any run, or,
  // if its run left it unfit (`outcome.healthy` false, a grown memory), is freed and replaced
  // (shared/sandbox/sandbox-supply.ts). The thread itself is sound either way, so it is not replaced for that.
  post({ type: 'done', runId, result: outcome.result, healthy: true });
  sandboxes.retire(supplied);
}

post({ type: 'ready' });
// Made once the worker is ready, while it waits for its first run (a nested run arriving before finds none and is given back).
void nestedSandboxes?.prepare(false).catch(() => undefined);
