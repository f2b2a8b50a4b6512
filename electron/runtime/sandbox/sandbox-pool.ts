// The pool of sandbox worker threads, and the outer watchdog. The kernel's interrupt handler stops
// guest bytecode at its deadline, but native work inside one engine call (a huge JSON.stringify,
// a giant allocation, a pathological regex) cannot be interrupted; the pool terminates such a
// worker at deadline + grace. A worker that dies, runs out of heap or reports an unhealthy engine
// is retired and a replacement starts at once, so the pool size stays constant and the process
// never goes down with a guest. Capability calls from the guest arrive here and are answered by
// the host ports the caller passes with each run; a run's WASM comes either as a plan, answered in
// the worker by its own dispatcher and WASM lanes (the app's route, wasm-plan.ts), or as a port
// answered here (the kernel contract fixtures script WASM answers that way).
//
// A run's host-side work belongs to the run: each run has an abort signal, passed with every
// capability call and fired when the run ends however it ends (its result, a timeout, the
// watchdog, a crash, close()), so no fetch or file operation outlives it. The worker streams each
// console entry the run keeps as it is kept; a run the watchdog or a crash ends still answers
// with the logs so far. A message from a worker that main cannot read (structured clone runs out
// of stack on a deeply nested value) ends the run at once with a tagged failure, never silence.

import { Worker } from 'node:worker_threads';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { emptyReceipt, type HostCallResult, type KernelRunRequest, type RunLog, type RunResult } from '../../../shared/protocol/run.ts';
import { timeoutMessage } from '../../../shared/sandbox/kernel.ts';
import { parseFromWorker, type SandboxWorkerData, type ToWorker } from './messages.ts';
import type { WasmPlan } from '../wasm/wasm-plan.ts';
import { assetUrl } from '../../platform/assets.ts';

/** WASM answered on the main thread, by a port (the kernel contract fixtures script answers so). */
export interface SandboxWasmPort {
  /** `exportName` and `args` are as the guest passed them: the port checks them (the dispatcher does). */
  call(moduleId: string, exportName: unknown, args: unknown): Promise<HostCallResult>;
}

/** WASM answered inside the sandbox worker, by its own dispatcher and lanes (see wasm-plan.ts). */
export interface SandboxWasmPlan {
  readonly plan: WasmPlan;
}

/** Host side of a run's calls. Ports must resolve with tagged results, never reject. */
export interface SandboxHostPorts {
  /** `signal` is the run's: it fires when the run ends, and a pending operation should stop then. */
  readonly capability?: (name: string, args: readonly unknown[], signal: AbortSignal) => Promise<HostCallResult>;
  readonly wasm?: SandboxWasmPort | SandboxWasmPlan;
}

export interface SandboxPoolOptions {
  /** Worker threads (default 2). */
  readonly size?: number;
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
}

interface Job {
  readonly runId: number;
  readonly request: KernelRunRequest;
  readonly ports: SandboxHostPorts;
  readonly resolve: (result: RunResult) => void;
  readonly started: number;
  /** Console entries streamed by the worker so far: what a run ended on this side answers with. */
  readonly logs: RunLog[];
  /** Made on the run's first host call (a run without any pays nothing); aborted when the run ends. */
  abort: AbortController | undefined;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  watchdog: ReturnType<typeof setTimeout> | undefined;
  retired: boolean;
}

function tsBootstrap(entry: URL): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
}

const CANCELLED_MESSAGE = 'The run was stopped before it finished.';

export class SandboxPoolClosedError extends Error {
  override readonly name = 'SandboxPoolClosedError';
}

export class SandboxPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextRunId = 1;
  private closed = false;
  /** Workers that died before becoming ready, in a row: a broken entry must not respawn forever. */
  private bootFailures = 0;
  private readonly size: number;
  private readonly graceMs: number;
  private readonly entry: URL;
  private readonly wasmLanes: number;
  /** Workers started over the pool's life, replacements included (for tests and diagnostics). */
  started = 0;

  constructor(options: SandboxPoolOptions = {}) {
    this.size = options.size ?? 2;
    this.graceMs = options.graceMs ?? 1000;
    this.entry = options.workerEntry ?? assetUrl('sandbox-worker');
    this.wasmLanes = Math.max(1, Math.floor(options.wasmLanes ?? LIMITS.wasmConcurrency));
    for (let i = 0; i < this.size; i++) this.spawn();
  }

  /** Live workers: constant at `size` while the pool is open. */
  get workerCount(): number {
    return this.slots.size;
  }

  /**
   * `cancel` stops the run when it fires (the user's Stop): a queued run leaves the queue, a running
   * one ends with `cancelled` and its worker is recycled as for the watchdog, since guest code can
   * only be stopped for certain by ending its thread.
   */
  run(request: KernelRunRequest, ports: SandboxHostPorts = {}, cancel?: AbortSignal): Promise<RunResult> {
    if (this.closed) return Promise.reject(new SandboxPoolClosedError('the sandbox pool is closed'));
    return new Promise<RunResult>((resolve) => {
      const job: Job = {
        runId: this.nextRunId++,
        request,
        ports,
        // Every way a run ends comes through here: whatever it still has pending on the host stops.
        resolve: (result) => {
          job.abort?.abort();
          cancel?.removeEventListener('abort', onCancel);
          resolve(result);
        },
        started: performance.now(),
        logs: [],
        abort: undefined,
      };
      const onCancel = () => this.cancelJob(job);
      if (cancel?.aborted) {
        resolve(this.failure(job, 'cancelled', CANCELLED_MESSAGE));
        return;
      }
      cancel?.addEventListener('abort', onCancel, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  private cancelJob(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.resolve(this.failure(job, 'cancelled', CANCELLED_MESSAGE));
      return;
    }
    for (const slot of this.slots) if (slot.job === job) this.fail(slot, 'cancelled', CANCELLED_MESSAGE);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve(this.failure(job, 'sandbox-crashed', 'The sandbox pool was closed before the run started.'));
    const exits: Promise<number>[] = [];
    for (const slot of [...this.slots]) {
      if (slot.job) slot.job.resolve(this.failure(slot.job, 'sandbox-crashed', 'The sandbox pool was closed during the run.'));
      slot.job = undefined;
      exits.push(this.retire(slot));
    }
    await Promise.all(exits);
  }

  private spawn(): void {
    const resourceLimits = { stackSizeMb: 16, maxOldGenerationSizeMb: 256 };
    const workerData: SandboxWorkerData = { wasmLanes: this.wasmLanes };
    const worker = this.entry.pathname.endsWith('.ts')
      ? new Worker(tsBootstrap(this.entry), { eval: true, resourceLimits, workerData })
      : new Worker(this.entry, { resourceLimits, workerData });
    this.started++;
    const slot: Slot = { worker, ready: false, job: undefined, watchdog: undefined, retired: false };
    this.slots.add(slot);
    worker.on('message', (raw: unknown) => this.onMessage(slot, raw));
    worker.on('error', (error: Error & { code?: string }) => {
      const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.fail(slot, memory ? 'memory-limit' : 'sandbox-crashed', memory
        ? `The code used more memory than the sandbox worker allows and was stopped.`
        : `The sandbox worker failed: ${error.message}`);
    });
    worker.on('exit', () => this.fail(slot, 'sandbox-crashed', 'The sandbox worker stopped unexpectedly.'));
    // Which message was lost is unknowable; the worker may still be running the job, so it goes.
    worker.on('messageerror', (error: Error) => {
      this.fail(slot, 'sandbox-crashed', `The sandbox worker sent a message the host could not read (${error.message}), for example a value nested too deeply; the run was stopped.`);
    });
  }

  private onMessage(slot: Slot, raw: unknown): void {
    const message = parseFromWorker(raw);
    if (!message) {
      this.fail(slot, 'sandbox-crashed', 'The sandbox worker sent a malformed message.');
      return;
    }
    if (message.type === 'ready') {
      slot.ready = true;
      this.bootFailures = 0;
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || message.runId !== job.runId) return;
    if (message.type === 'log') {
      job.logs.push(message.entry);
      return;
    }
    if (message.type === 'host-call') {
      void this.answer(job, message.kind, message.name, message.args).then((result) => {
        if (slot.job !== job || slot.retired) return;
        this.reply(slot, { type: 'host-result', runId: job.runId, callId: message.callId, result });
      });
      return;
    }
    clearTimeout(slot.watchdog);
    slot.job = undefined;
    job.resolve(message.result);
    if (!message.healthy) this.replace(slot);
    else this.pump();
  }

  /** Post a host call's answer; one that cannot be cloned is answered with a tagged failure instead. */
  private reply(slot: Slot, reply: Extract<ToWorker, { type: 'host-result' }>): void {
    try {
      slot.worker.postMessage(reply);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      try {
        slot.worker.postMessage({ ...reply, result: { ok: false, code: 'invalid-data', message: `The host's answer could not be passed into the sandbox (${why}).` } });
      } catch {
        this.fail(slot, 'sandbox-crashed', `The host could not answer the sandbox worker (${why}); the run was stopped.`);
      }
    }
  }

  private async answer(job: Job, kind: 'capability' | 'wasm', name: string, args: unknown[]): Promise<HostCallResult> {
    try {
      if (kind === 'capability') {
        if (!job.ports.capability) return { ok: false, code: 'capability-denied', message: `${name} is not available to this run.` };
        job.abort ??= new AbortController();
        return await job.ports.capability(name, args, job.abort.signal);
      }
      if (!job.ports.wasm || !('call' in job.ports.wasm)) return { ok: false, code: 'wasm-not-declared', message: 'This run has no WASM host.' };
      const [exportName, wasmArgs] = args;
      return await job.ports.wasm.call(name, exportName, wasmArgs);
    } catch (error) {
      return { ok: false, code: 'internal', message: `The host failed to answer ${name}: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  private pump(): void {
    if (this.closed) return;
    if (this.slots.size === 0 && this.bootFailures >= 3) {
      for (const queued of this.queue.splice(0)) queued.resolve(this.failure(queued, 'sandbox-crashed', 'Sandbox workers fail to start; see the app log.'));
      return;
    }
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.queue.shift() as Job;
      slot.job = job;
      // Counted from dispatch, not from queueing: waiting for a free worker is not guest time.
      const limit = Math.min(job.request.timeoutMs, LIMITS.guestTimeoutMs);
      slot.watchdog = setTimeout(() => this.fail(slot, 'timeout', timeoutMessage(job.request.timeoutMs)), limit + this.graceMs);
      const wasm = job.ports.wasm;
      const message: ToWorker = wasm && 'plan' in wasm ? { type: 'run', runId: job.runId, request: job.request, wasm: wasm.plan } : { type: 'run', runId: job.runId, request: job.request };
      try {
        slot.worker.postMessage(message);
      } catch (error) {
        // Nothing reached the worker: it stays free for the next run.
        clearTimeout(slot.watchdog);
        slot.job = undefined;
        job.resolve(this.failure(job, 'invalid-data', `The run could not be passed to the sandbox worker: ${error instanceof Error ? error.message : String(error)}.`));
        queueMicrotask(() => this.pump());
      }
    }
  }

  /** The slot's worker is gone or must go: answer its job, retire it, start a replacement. */
  private fail(slot: Slot, code: string, message: string): void {
    if (slot.retired) return;
    const job = slot.job;
    slot.job = undefined;
    if (job) job.resolve(this.failure(job, code, message));
    if (!slot.ready && ++this.bootFailures >= 3) {
      void this.retire(slot);
      if (this.slots.size === 0) {
        for (const queued of this.queue.splice(0)) queued.resolve(this.failure(queued, 'sandbox-crashed', `Sandbox workers fail to start: ${message}`));
      }
      return;
    }
    this.replace(slot);
  }

  private replace(slot: Slot): void {
    void this.retire(slot);
    if (!this.closed) this.spawn();
    this.pump();
  }

  private retire(slot: Slot): Promise<number> {
    if (slot.retired) return Promise.resolve(0);
    slot.retired = true;
    clearTimeout(slot.watchdog);
    this.slots.delete(slot);
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('message');
    slot.worker.on('error', () => undefined);
    return slot.worker.terminate();
  }

  private failure(job: Job, code: string, message: string): RunResult {
    return { ok: false, code, message, logs: [...job.logs], receipt: { ...emptyReceipt(), wallMs: performance.now() - job.started } };
  }
}
