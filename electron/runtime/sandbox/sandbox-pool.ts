// The app's sandbox pool: kernel workers as Node worker threads, over the shared kernel host core
// (shared/sandbox/hosting/kernel-host-core.ts: slots, queue, watchdog, retire and replace, host-call
// routing, log streaming, cancel, close) and the fair scheduler (hosting/fair-scheduler.ts). This
// adapter says how a worker thread starts and dies, and how a run's calls are answered: capability
// calls by the host ports the caller passes with each run, with the run's abort signal; a run's
// WASM as a plan, answered in the worker by its own dispatcher and WASM lanes (wasm-plan.ts).
//
// Invariant: the process never goes down with a guest. Workers exist because a guest's deep
// recursion on the main thread overflows the host stack (measured); a worker that runs out of
// heap ends its run as `memory-limit`.

import { Worker } from 'node:worker_threads';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import type { HostCallResult, KernelRunRequest, RunResult } from '../../../shared/protocol/run.ts';
import { fairScheduler } from '../../../shared/sandbox/hosting/fair-scheduler.ts';
import { KernelHostCore, type KernelHostCall, type KernelWorker, type KernelWorkerHooks } from '../../../shared/sandbox/hosting/kernel-host-core.ts';
import { KernelHostClosedError } from '../../../shared/sandbox/hosting/kernel-host-closed.ts';
import type { RunSources } from '../../../shared/sandbox/supply/source-cache.ts';
import type { SandboxWorkerData, ToWorker } from './messages.ts';
import type { WasmPlan } from '../wasm/wasm-plan.ts';
import { assetUrl } from '../../platform/assets.ts';
import { createHoldBuffer, createPressureBuffer, holdSwitch, pressureSwitch } from './run-hold.ts';
import { createAnsweredWord, signalAnswered } from './answered-word.ts';

/**
 * The most sandbox workers the app's pool runs at once (its `maxWorkers`): the two it keeps and
 * up to six more for long runs. Short runs need none of the extra ones (they run nested in the
 * long runs' workers, fair-scheduler.ts, WASM and host calls included); they serve runs that
 * cannot run nested (they compute past the nested budget) while long runs hold the others. More cost the short runs: in bench load (12 hostile runs
 * among 90 ordinary ones over HTTP, 2 cores), rounds that started with 11 workers left by the
 * round before had an ordinary median of 94–122 ms under a cap of 16, 81–84 ms under 8 (65–69 ms
 * under 4, which leaves two for such runs), as every thread's wake-ups and cold memory compete
 * with the app's own thread. The memory it bounds: each worker is a V8 isolate capped at 256 MB of
 * old generation (`resourceLimits`, below) plus its engine instances — the run's, whose guest heap
 * is capped at 64 MB, and the ones prepared for the next run and for nested runs — so 8 guest
 * heaps are 512 MB and the isolates' caps 2 GB.
 */
export const ELASTIC_MAX_WORKERS = 8;

/** WASM answered inside the sandbox worker, by its own dispatcher and lanes (see wasm-plan.ts). */
export interface SandboxWasmPlan {
  readonly plan: WasmPlan;
}

/** Host side of a run's calls. Ports must resolve with tagged results, never reject. */
export interface SandboxHostPorts {
  /** `signal` is the run's: it fires when the run ends, and a pending operation should stop then. */
  readonly capability?: (name: string, args: readonly unknown[], signal: AbortSignal) => Promise<HostCallResult>;
  readonly wasm?: SandboxWasmPlan;
}

/** Answers a WASM call a worker sent to this side (a run without a plan), with the run's ports. */
export type HostWasmAnswer = (ports: SandboxHostPorts, call: KernelHostCall) => Promise<HostCallResult>;

export interface SandboxPoolOptions {
  /** Worker threads kept (default 2). */
  readonly size?: number;
  /** Most worker threads at once while long runs occupy some (default `size`: a fixed pool; the app's runner uses ELASTIC_MAX_WORKERS). */
  readonly maxWorkers?: number;
  /** Hold a long run while short runs use the cores (default true; see run-hold.ts). */
  readonly holdLongRuns?: boolean;
  /** An extra worker idle this long retires (default 5 s, fair-scheduler.ts). */
  readonly idleRetireMs?: number;
  /** Extra time past a run's deadline before its worker is terminated (default 1000 ms). */
  readonly graceMs?: number;
  /**
   * The worker entry; defaults to sandbox-worker.ts next to this file. A `.ts` entry is started
   * through a two-line bootstrap that registers tsx first (on Node 20 `execArgv: ['--import',
   * 'tsx']` does not apply to a worker's own entry). A bundled build emits the worker as its own
   * `.js` entry and passes its URL here; it then starts directly.
   */
  readonly workerEntry?: URL;
  /** WASM lanes each worker starts on its first run with WASM (default: the per-run concurrency budget). */
  readonly wasmLanes?: number;
  /** Answers WASM calls on this thread (default: refused; the app's runs carry a plan instead). */
  readonly answerWasm?: HostWasmAnswer;
  /** The longest a worker waits for the pool's word before restoring its sandbox (default ANSWER_WAIT_MS; tests lengthen it). */
  readonly answerWaitMs?: number;
}

function tsBootstrap(entry: URL): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
}

/** A run ended on this side reads its reason as is: "the sandbox worker failed: …" → "The sandbox worker failed: …". */
const capitalized = (why: string): string => `${why.charAt(0).toUpperCase()}${why.slice(1)}`;

/**
 * Under hostile load (issue 17) the pool's scheduler is the fair one (fair-scheduler.ts): short
 * runs run nested in long runs' workers, long runs are held (run-hold.ts) while short runs use the
 * cores, and with `maxWorkers` above `size` extra workers start for runs that cannot run nested.
 * A WASM call that reaches this side is refused, unless the pool was made with `answerWasm` (test
 * support answers such calls on this thread).
 */
export class SandboxPool {
  readonly #core: KernelHostCore<SandboxHostPorts>;

  constructor(options: SandboxPoolOptions = {}) {
    const entry = options.workerEntry ?? assetUrl('sandbox-worker');
    const wasmLanes = Math.max(1, Math.floor(options.wasmLanes ?? LIMITS.wasmConcurrency));
    const hold = options.holdLongRuns ?? true;
    // One word all of this pool's workers read: short work waits (run-hold.ts).
    const pressure = hold ? createPressureBuffer() : undefined;
    this.#core = new KernelHostCore<SandboxHostPorts>({
      size: options.size ?? 2,
      scheduler: fairScheduler({
        ...(options.maxWorkers !== undefined ? { maxWorkers: options.maxWorkers } : {}),
        ...(options.idleRetireMs !== undefined ? { idleRetireMs: options.idleRetireMs } : {}),
      }),
      graceMs: options.graceMs ?? 1000,
      startWorker: (hooks) => {
        const answered = { answered: createAnsweredWord(), ...(options.answerWaitMs !== undefined ? { answerWaitMs: options.answerWaitMs } : {}) };
        return startThread(entry, { wasmLanes, ...answered, ...(pressure ? { hold: createHoldBuffer(), pressure } : {}) }, hooks);
      },
      ...(pressure ? { pressure: pressureSwitch(pressure) } : {}),
      // A held worker runs short runs nested at its long run's polls (see fair-scheduler.ts).
      ...(hold
        ? {
            nestedRunMessage: (runId: number, request: KernelRunRequest, sources: RunSources | undefined, ports: SandboxHostPorts): ToWorker => ({
              type: 'run',
              runId,
              request,
              nested: true,
              ...(ports.wasm ? { wasm: ports.wasm.plan } : {}),
              ...(sources ? { sources } : {}),
            }),
            nestsWasm: true,
          }
        : {}),
      runMessage: (runId, request, ports, sources): ToWorker => ({
        type: 'run',
        runId,
        request,
        ...(ports.wasm ? { wasm: ports.wasm.plan } : {}),
        ...(sources ? { sources } : {}),
      }),
      answer: (ports, call, signal) => answer(ports, call, signal, options.answerWasm),
      wording: {
        crashed: capitalized,
        cannotStart: (why) => `Sandbox workers fail to start: ${capitalized(why)}`,
        closedQueued: 'The sandbox pool was closed before the run started.',
        closedRunning: 'The sandbox pool was closed during the run.',
        side: 'host',
      },
    });
  }

  /** Workers started over the pool's life, replacements included (for tests and diagnostics). */
  get started(): number {
    return this.#core.started;
  }

  /** Live workers: `size` while the pool is open, up to `maxWorkers` while long runs occupy some. */
  get workerCount(): number {
    return this.#core.workerCount;
  }

  /**
   * `cancel` stops the run when it fires (the user's Stop): a queued run leaves the queue, a running
   * one ends with `cancelled` and its worker is recycled as for the watchdog, since guest code can
   * only be stopped for certain by ending its thread.
   */
  run(request: KernelRunRequest, ports: SandboxHostPorts = {}, cancel?: AbortSignal): Promise<RunResult> {
    if (this.#core.closed) return Promise.reject(new KernelHostClosedError('the sandbox pool'));
    return this.#core.run(request, ports, cancel);
  }

  close(): Promise<void> {
    return this.#core.close();
  }
}

async function answer(ports: SandboxHostPorts, call: KernelHostCall, signal: () => AbortSignal, wasm: HostWasmAnswer | undefined): Promise<HostCallResult> {
  if (call.kind === 'capability') {
    if (!ports.capability) return { ok: false, code: 'capability-denied', message: `${call.name} is not available to this run.` };
    return ports.capability(call.name, call.args, signal());
  }
  if (!wasm) return { ok: false, code: 'wasm-not-declared', message: 'This run has no WASM host.' };
  return wasm(ports, call);
}

/**
 * A worker's young generation, capped (issue 30): uncapped, a console flood's host-side garbage grew
 * it until the worker stayed ~200 MB larger for 8 s after the run (V8 shrinks it only when it finds
 * the thread idle), against ~30 MB capped at 16 MB. Guest heaps live in engine memories, not here;
 * a mix of trivial, console and 2,000-row runs took the same time either way (interleaved, noisy).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

function startThread(entry: URL, workerData: SandboxWorkerData, hooks: KernelWorkerHooks): KernelWorker {
  const resourceLimits = { stackSizeMb: 16, maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  const worker = entry.pathname.endsWith('.ts')
    ? new Worker(tsBootstrap(entry), { eval: true, resourceLimits, workerData })
    : new Worker(entry, { resourceLimits, workerData });
  const answered = workerData.answered;
  worker.on(
    'message',
    answered
      ? (raw: unknown) => {
          hooks.message(raw);
          // After this turn of the event loop (the answer's promise chain has sent it on), the worker restores.
          if (isDone(raw)) setImmediate(signalAnswered, answered);
        }
      : hooks.message,
  );
  worker.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') hooks.crashed('the code used more memory than the sandbox worker allows and was stopped.', 'memory-limit');
    else hooks.crashed(`the sandbox worker failed: ${error.message}`);
  });
  worker.on('exit', () => hooks.crashed('the sandbox worker stopped unexpectedly.'));
  // Which message was lost is unknowable; the worker may still be running the job, so it goes.
  worker.on('messageerror', (error: Error) => {
    hooks.crashed(`the sandbox worker sent a message the host could not read (${error.message}), for example a value nested too deeply; the run was stopped.`);
  });
  return {
    postMessage: answered
      ? (message) => {
          worker.postMessage(message);
          // A worker that waits to restore takes what was just sent without waiting longer.
          signalAnswered(answered);
        }
      : (message) => worker.postMessage(message),
    ...(workerData.hold ? { hold: holdSwitch(workerData.hold) } : {}),
    terminate: () => {
      worker.removeAllListeners('exit');
      worker.removeAllListeners('message');
      worker.on('error', () => undefined);
      return worker.terminate();
    },
  };
}

/** A worker's `done` message, by its tag alone (the core parses it whole). */
function isDone(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'done';
}
