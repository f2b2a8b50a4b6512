// The page side of the browser kernel worker: it owns one Web Worker, runs one invocation at a
// time on it (later runs queue), answers the guest's capability and WASM calls through the ports
// the caller passes with each run, and is the outer watchdog. The kernel's interrupt handler stops
// guest bytecode at its deadline; native work inside one engine call cannot be interrupted, so the
// worker is terminated at deadline + grace and a fresh one takes its place — the same rule as the
// Node pool (electron/runtime/sandbox/sandbox-pool.ts). A worker that crashes or reports an
// unhealthy engine is replaced the same way. As in the Node pool, the worker streams the console
// entries a run keeps, so a run the watchdog or a crash ends still answers with its logs so far,
// and a worker message the page cannot read ends the run at once with a tagged failure.

import { emptyReceipt, type HostCallResult, type KernelRunRequest, type RunLog, type RunResult } from '../../shared/protocol/run.ts';
import { timeoutMessage } from '../../shared/sandbox/kernel.ts';
import { FromKernelWorkerSchema, type ToKernelWorker, type WorkerLike } from './worker-messages.ts';

export interface KernelHostPorts {
  readonly capability: (name: string, args: readonly unknown[]) => Promise<HostCallResult>;
  /** `exportName` and `args` arrive as the guest passed them: the port checks them (the dispatcher does). */
  readonly wasm: (moduleId: string, exportName: unknown, args: unknown) => Promise<HostCallResult>;
}

export interface KernelHostOptions {
  /** Starts the kernel worker (an adapter: `new Worker(url, { type: 'module' })` in a page). */
  readonly startWorker: () => WorkerLike;
  /** URL of quickjs-ng's .wasm as the web host serves it. */
  readonly engineWasmUrl: string;
  /** Extra time past a run's deadline before the worker is terminated (default 1000 ms). */
  readonly graceMs?: number;
}

interface Job {
  readonly runId: number;
  readonly request: KernelRunRequest;
  readonly ports: KernelHostPorts;
  readonly resolve: (result: RunResult) => void;
  readonly started: number;
  /** Console entries streamed by the worker so far: what a run ended on this side answers with. */
  readonly logs: RunLog[];
}

/** A host used after close(): a bug in its owner. */
export class KernelHostClosedError extends Error {
  override readonly name = 'KernelHostClosedError';
}

const MAX_BOOT_FAILURES = 3;

export class KernelHost {
  readonly #options: KernelHostOptions;
  readonly #graceMs: number;
  #worker: WorkerLike | undefined;
  #ready = false;
  #job: Job | undefined;
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  readonly #queue: Job[] = [];
  #nextRunId = 1;
  #closed = false;
  #bootFailures = 0;
  #broken: string | undefined;
  /** Workers started over the host's life, replacements included. */
  started = 0;

  constructor(options: KernelHostOptions) {
    this.#options = options;
    this.#graceMs = options.graceMs ?? 1000;
    this.#spawn();
  }

  run(request: KernelRunRequest, ports: KernelHostPorts): Promise<RunResult> {
    if (this.#closed) throw new KernelHostClosedError('the browser kernel host is closed');
    if (this.#broken) return Promise.resolve(crashed(this.#broken));
    return new Promise<RunResult>((resolve) => {
      this.#queue.push({ runId: this.#nextRunId++, request, ports, resolve, started: performance.now(), logs: [] });
      this.#pump();
    });
  }

  /** Terminates the worker; queued and running invocations answer `sandbox-crashed`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const pending = [...(this.#job ? [this.#job] : []), ...this.#queue.splice(0)];
    this.#job = undefined;
    this.#retire();
    for (const job of pending) job.resolve(crashed('The page closed the sandbox before the code finished.', job));
  }

  #spawn(): void {
    const worker = this.#options.startWorker();
    this.#worker = worker;
    this.#ready = false;
    this.started++;
    worker.onmessage = (event) => this.#onMessage(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.#onCrash(worker, `the sandbox worker failed: ${event.message || 'unknown error'}`);
    };
    // Which message was lost is unknowable, and the worker may still be running the job: it goes.
    worker.onmessageerror = () => this.#onCrash(worker, 'the sandbox worker sent a message the page could not read, for example a value nested too deeply');
    const init: ToKernelWorker = { type: 'init', engineWasmUrl: this.#options.engineWasmUrl };
    worker.postMessage(init);
  }

  #onMessage(worker: WorkerLike, raw: unknown): void {
    if (worker !== this.#worker) return;
    const parsed = FromKernelWorkerSchema.safeParse(raw);
    if (!parsed.success) return this.#onCrash(worker, 'the sandbox worker sent a malformed message');
    const message = parsed.data;
    if (message.type === 'ready') {
      this.#ready = true;
      this.#bootFailures = 0;
      return this.#pump();
    }
    if (message.type === 'boot-failed') return this.#onCrash(worker, `the sandbox engine could not start: ${message.message}`);
    const job = this.#job;
    if (!job || message.runId !== job.runId) return;
    if (message.type === 'log') {
      job.logs.push(message.entry);
      return;
    }
    if (message.type === 'host-call') {
      const answer = message.kind === 'wasm' ? job.ports.wasm(message.name, message.args[0], message.args[1]) : job.ports.capability(message.name, message.args);
      void answer
        .catch((error: unknown): HostCallResult => ({ ok: false, code: 'internal', message: `The host failed: ${error instanceof Error ? error.message : String(error)}` }))
        .then((result) => {
          if (this.#job !== job || this.#worker !== worker) return;
          const reply: ToKernelWorker = { type: 'host-result', runId: job.runId, callId: message.callId, result };
          try {
            worker.postMessage(reply);
          } catch (error) {
            const why = error instanceof Error ? error.message : String(error);
            worker.postMessage({ ...reply, result: { ok: false, code: 'invalid-data', message: `The page's answer could not be passed into the sandbox (${why}).` } } satisfies ToKernelWorker);
          }
        });
      return;
    }
    this.#finish(job, message.result as RunResult);
    if (!message.healthy) this.#replace();
    this.#pump();
  }

  #onCrash(worker: WorkerLike, why: string): void {
    if (worker !== this.#worker) return;
    if (!this.#ready) this.#bootFailures++;
    const job = this.#job;
    if (job) this.#finish(job, crashed(`The sandbox stopped unexpectedly (${why}); a fresh sandbox took its place.`, job));
    if (this.#bootFailures >= MAX_BOOT_FAILURES) {
      this.#broken = `The sandbox cannot start in this window: ${why}`;
      this.#retire();
      for (const queued of this.#queue.splice(0)) queued.resolve(crashed(this.#broken, queued));
      return;
    }
    this.#replace();
    this.#pump();
  }

  #pump(): void {
    if (this.#closed || this.#job || !this.#ready || !this.#worker) return;
    const job = this.#queue.shift();
    if (!job) return;
    this.#job = job;
    const worker = this.#worker;
    const message: ToKernelWorker = { type: 'run', runId: job.runId, request: job.request };
    try {
      worker.postMessage(message);
    } catch (error) {
      // Nothing reached the worker: it stays free for the next run.
      this.#job = undefined;
      job.resolve({ ok: false, code: 'invalid-data', message: `The run could not be passed to the sandbox worker: ${error instanceof Error ? error.message : String(error)}.`, logs: [], receipt: { ...emptyReceipt(), wallMs: performance.now() - job.started } });
      queueMicrotask(() => this.#pump());
      return;
    }
    this.#watchdog = setTimeout(() => {
      if (this.#job !== job) return;
      this.#finish(job, { ok: false, code: 'timeout', message: timeoutMessage(job.request.timeoutMs), logs: [...job.logs], receipt: { ...emptyReceipt(), wallMs: performance.now() - job.started } });
      this.#replace();
      this.#pump();
    }, job.request.timeoutMs + this.#graceMs);
  }

  #finish(job: Job, result: RunResult): void {
    if (this.#job === job) this.#job = undefined;
    if (this.#watchdog !== undefined) clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    job.resolve(result);
  }

  #replace(): void {
    this.#retire();
    if (!this.#closed) this.#spawn();
  }

  #retire(): void {
    if (this.#watchdog !== undefined) clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = false;
    if (worker) {
      worker.onmessage = null;
      worker.onerror = null;
      worker.onmessageerror = null;
      worker.terminate();
    }
  }
}

/** A run this side ends as `sandbox-crashed`, with the logs its worker streamed so far. */
function crashed(message: string, job?: Job): RunResult {
  return { ok: false, code: 'sandbox-crashed', message, logs: job ? [...job.logs] : [], receipt: { ...emptyReceipt(), wallMs: job ? performance.now() - job.started : 0 } };
}
