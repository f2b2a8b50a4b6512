// The host side of kernel workers, written once for Node (worker_threads, the app's sandbox pool)
// and the browser (a Web Worker, the page's runner). Each host keeps a thin adapter that says how
// to start a worker, how a run travels and how a host call is answered; everything else lives
// here, so runs end the same way in both places.
//
// The kernel's interrupt handler stops guest bytecode at its deadline, but native work inside one
// engine call (a huge JSON.stringify, a giant allocation, a pathological regex) cannot be
// interrupted: the core is the outer watchdog and terminates such a worker at deadline + grace.
// A worker that dies, sends what the host cannot read (structured clone out of stack on a deeply
// nested value, or a malformed message) or reports an unhealthy engine is retired and a
// replacement starts at once; workers that keep dying before they are ready (a broken install)
// stop being respawned and runs are answered with why. Cancelling a running run (the user's Stop)
// costs its worker the same way, since guest code can only be stopped for certain by ending its
// thread. The worker streams each console entry as the run keeps it, so a run ended on this side
// still answers with its logs so far. A run's host-side work belongs to the run: its abort signal
// fires when the run ends however it ends, so no fetch or file operation outlives it.

import type { ErrorCode } from '../protocol/codes.ts';
import { LIMITS } from '../protocol/limits.ts';
import { emptyReceipt, type HostCallResult, type KernelRunRequest, type RunLog, type RunResult } from '../protocol/run.ts';
import { timeoutMessage } from './job-loop.ts';
import { parseFromKernelWorker, type HostResultMessage } from './kernel-worker-messages.ts';

/** The part of a worker the core uses; the adapter wires the worker's events to `KernelWorkerHooks`. */
export interface KernelWorker {
  /** Throws when the message cannot be cloned. */
  postMessage(message: unknown): void;
  /** May return a promise that settles once the worker has exited; `close()` waits for it. */
  terminate(): unknown;
}

/** What the adapter calls when its worker speaks or dies; calls after retirement are ignored. */
export interface KernelWorkerHooks {
  /** A message from the worker, unparsed. */
  message(raw: unknown): void;
  /** The worker failed, exited or sent what could not be read; `why` is a clause ("the sandbox worker failed: …") the wording turns into the run's message. */
  crashed(why: string, code?: Extract<ErrorCode, 'sandbox-crashed' | 'memory-limit'>): void;
}

/** A host call from the guest, as the worker forwarded it. */
export interface KernelHostCall {
  readonly kind: 'capability' | 'wasm';
  readonly name: string;
  readonly args: unknown[];
}

/** The sentences a host's users read when a run ends on this side (a page and the app word them apart). */
export interface KernelHostWording {
  /** A run whose worker died, from a reason such as "the sandbox worker failed: …". */
  readonly crashed: (why: string) => string;
  /** Every run's answer once workers keep failing to start. */
  readonly cannotStart: (why: string) => string;
  readonly closedQueued: string;
  readonly closedRunning: string;
  /** Who answers host calls, in messages: "host" or "page". */
  readonly side: string;
}

export interface KernelHostCoreOptions<P> {
  readonly size: number;
  /** Extra time past a run's deadline before its worker is terminated. */
  readonly graceMs: number;
  readonly startWorker: (hooks: KernelWorkerHooks) => KernelWorker;
  /** The message that starts a run on a worker (a host may add what its worker needs, e.g. a WASM plan). */
  readonly runMessage: (runId: number, request: KernelRunRequest, ports: P) => unknown;
  /**
   * Answer one host call through the run's ports; may reject (the core answers `internal`).
   * `signal()` is the run's abort signal, made on first use and fired when the run ends.
   */
  readonly answer: (ports: P, call: KernelHostCall, signal: () => AbortSignal) => Promise<HostCallResult>;
  readonly wording: KernelHostWording;
}

interface Job<P> {
  readonly runId: number;
  readonly request: KernelRunRequest;
  readonly ports: P;
  readonly resolve: (result: RunResult) => void;
  readonly started: number;
  /** Console entries streamed by the worker so far: what a run ended on this side answers with. */
  readonly logs: RunLog[];
  /** Made on the run's first host call that wants it (a run without any pays nothing); aborted when the run ends. */
  abort: AbortController | undefined;
}

interface Slot<P> {
  readonly worker: KernelWorker;
  ready: boolean;
  job: Job<P> | undefined;
  watchdog: ReturnType<typeof setTimeout> | undefined;
  retired: boolean;
}

const MAX_START_FAILURES = 3;
const CANCELLED_MESSAGE = 'The run was stopped before it finished.';
// A run stopped before a worker took it: say that none of its code ran, or a user who waited on a
// starting sandbox (the first run takes a second or more) reads its empty logs as logs lost.
const CANCELLED_QUEUED_MESSAGE = 'The run was stopped while it waited for the sandbox to be ready; none of its code ran.';

export class KernelHostCore<P> {
  readonly #options: KernelHostCoreOptions<P>;
  readonly #slots = new Set<Slot<P>>();
  readonly #queue: Job<P>[] = [];
  #nextRunId = 1;
  #closed = false;
  /** Workers that died before becoming ready, in a row: a broken install must not respawn forever. */
  #startFailures = 0;
  /** Set once no worker can start: every run's answer from then on. */
  #broken: string | undefined;
  /** Terminations still under way; `close()` waits for them. */
  readonly #exits = new Set<Promise<unknown>>();
  /** Workers started over the host's life, replacements included (for tests and diagnostics). */
  started = 0;

  constructor(options: KernelHostCoreOptions<P>) {
    this.#options = options;
    for (let i = 0; i < options.size; i++) this.#spawn();
  }

  /** Live workers: constant at `size` while the host is open and workers start. */
  get workerCount(): number {
    return this.#slots.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * `cancel` stops the run when it fires: a queued run leaves the queue, a running one ends with
   * `cancelled` and its worker is recycled. Call only while open (the adapters say how they refuse).
   */
  run(request: KernelRunRequest, ports: P, cancel?: AbortSignal): Promise<RunResult> {
    return new Promise<RunResult>((resolve) => {
      const job: Job<P> = {
        runId: this.#nextRunId++,
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
      const onCancel = () => this.#cancel(job);
      if (this.#broken) return job.resolve(this.#failure(job, 'sandbox-crashed', this.#broken));
      if (cancel?.aborted) return job.resolve(this.#failure(job, 'cancelled', CANCELLED_QUEUED_MESSAGE));
      cancel?.addEventListener('abort', onCancel, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Answers what is pending (`sandbox-crashed`), terminates every worker, and settles once they have exited. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      const { closedQueued, closedRunning } = this.#options.wording;
      for (const job of this.#queue.splice(0)) job.resolve(this.#failure(job, 'sandbox-crashed', closedQueued));
      for (const slot of [...this.#slots]) {
        const job = slot.job;
        slot.job = undefined;
        if (job) job.resolve(this.#failure(job, 'sandbox-crashed', closedRunning));
        this.#retire(slot);
      }
    }
    await Promise.all([...this.#exits]);
  }

  #cancel(job: Job<P>): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      job.resolve(this.#failure(job, 'cancelled', CANCELLED_QUEUED_MESSAGE));
      return;
    }
    for (const slot of this.#slots) if (slot.job === job) this.#fail(slot, 'cancelled', CANCELLED_MESSAGE);
  }

  #spawn(): void {
    let slot: Slot<P> | undefined;
    const hooks: KernelWorkerHooks = {
      message: (raw) => {
        if (slot) this.#onMessage(slot, raw);
      },
      crashed: (why, code = 'sandbox-crashed') => {
        if (slot) this.#crashed(slot, why, code);
      },
    };
    this.started++;
    slot = { worker: this.#options.startWorker(hooks), ready: false, job: undefined, watchdog: undefined, retired: false };
    this.#slots.add(slot);
  }

  #onMessage(slot: Slot<P>, raw: unknown): void {
    if (slot.retired) return;
    const message = parseFromKernelWorker(raw);
    if (!message) return this.#crashed(slot, 'the sandbox worker sent a malformed message');
    if (message.type === 'ready') {
      slot.ready = true;
      this.#startFailures = 0;
      return this.#pump();
    }
    if (message.type === 'boot-failed') return this.#crashed(slot, `the sandbox engine could not start: ${message.message}`);
    const job = slot.job;
    if (!job || message.runId !== job.runId) return;
    if (message.type === 'log') {
      job.logs.push(message.entry);
      return;
    }
    if (message.type === 'host-call') {
      void this.#answer(job, message).then((result) => {
        if (slot.job !== job || slot.retired) return;
        this.#reply(slot, { type: 'host-result', runId: job.runId, callId: message.callId, result });
      });
      return;
    }
    clearTimeout(slot.watchdog);
    slot.job = undefined;
    job.resolve(message.result);
    if (!message.healthy) this.#replace(slot);
    else this.#pump();
  }

  async #answer(job: Job<P>, call: KernelHostCall): Promise<HostCallResult> {
    try {
      return await this.#options.answer(job.ports, call, () => (job.abort ??= new AbortController()).signal);
    } catch (error) {
      return {
        ok: false,
        code: 'internal',
        message: `The ${this.#options.wording.side} failed to answer ${call.name}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }

  /** Post a host call's answer; one that cannot be cloned is answered with a tagged failure instead. */
  #reply(slot: Slot<P>, reply: HostResultMessage): void {
    const { side } = this.#options.wording;
    try {
      slot.worker.postMessage(reply);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      try {
        slot.worker.postMessage({
          ...reply,
          result: { ok: false, code: 'invalid-data', message: `The ${side}'s answer could not be passed into the sandbox (${why}).` },
        } satisfies HostResultMessage);
      } catch {
        this.#crashed(slot, `the ${side} could not answer the sandbox worker (${why})`);
      }
    }
  }

  #pump(): void {
    if (this.#closed) return;
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.#queue.shift() as Job<P>;
      slot.job = job;
      // Counted from dispatch, not from queueing: waiting for a free worker is not guest time.
      const limit = Math.min(job.request.timeoutMs, LIMITS.guestTimeoutMs);
      slot.watchdog = setTimeout(() => this.#fail(slot, 'timeout', timeoutMessage(job.request.timeoutMs)), limit + this.#options.graceMs);
      try {
        slot.worker.postMessage(this.#options.runMessage(job.runId, job.request, job.ports));
      } catch (error) {
        // Nothing reached the worker: it stays free for the next run.
        clearTimeout(slot.watchdog);
        slot.job = undefined;
        job.resolve(
          this.#failure(job, 'invalid-data', `The run could not be passed to the sandbox worker: ${error instanceof Error ? error.message : String(error)}.`),
        );
        queueMicrotask(() => this.#pump());
      }
    }
  }

  /** The slot's worker died or sent what cannot be read: its run ends, and it is replaced unless workers keep failing to start. */
  #crashed(slot: Slot<P>, why: string, code: ErrorCode = 'sandbox-crashed'): void {
    if (slot.retired) return;
    if (slot.ready || ++this.#startFailures < MAX_START_FAILURES) return this.#fail(slot, code, this.#options.wording.crashed(why));
    this.#retire(slot);
    if (this.#slots.size > 0) return;
    this.#broken = this.#options.wording.cannotStart(why);
    for (const queued of this.#queue.splice(0)) queued.resolve(this.#failure(queued, 'sandbox-crashed', this.#broken));
  }

  /** The slot's worker must go: answer its run, retire it, start a replacement. */
  #fail(slot: Slot<P>, code: ErrorCode, message: string): void {
    if (slot.retired) return;
    const job = slot.job;
    slot.job = undefined;
    if (job) job.resolve(this.#failure(job, code, message));
    this.#replace(slot);
  }

  #replace(slot: Slot<P>): void {
    this.#retire(slot);
    if (!this.#closed) this.#spawn();
    this.#pump();
  }

  #retire(slot: Slot<P>): void {
    if (slot.retired) return;
    slot.retired = true;
    clearTimeout(slot.watchdog);
    this.#slots.delete(slot);
    const exit = Promise.resolve(slot.worker.terminate()).catch(() => undefined);
    this.#exits.add(exit);
    void exit.then(() => this.#exits.delete(exit));
  }

  #failure(job: Job<P>, code: ErrorCode, message: string): RunResult {
    return { ok: false, code, message, logs: [...job.logs], receipt: { ...emptyReceipt(), wallMs: performance.now() - job.started } };
  }
}
