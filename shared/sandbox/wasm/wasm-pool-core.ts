// The WASM pool's scheduling, written once for Node (worker_threads) and the browser (Web Workers).
// Each host keeps a thin adapter that says how to start a worker, how to prepare a module (hash,
// check, maybe compile) and how a module travels in a call; everything else lives here so budgets
// and failures read the same in both places (the rules: WasmPoolCore).
//
// Ownership: the core owns its workers and timers; `dispose()` fails what is pending and resolves
// once every worker — including ones terminated for timeouts — has finished terminating.

import type { ErrorCode } from '../../protocol/codes.ts';
import { fail, type Result } from '../../protocol/result.ts';
import type { WasmPoolReply, WasmPoolRequest } from './wasm-dispatcher.ts';
import { parseWasmWorkerReply } from './wasm-worker-reply.ts';

/** The part of a worker the core uses; the adapter wires the worker's events to `WasmPoolWorkerHooks`. */
export interface WasmPoolWorker {
  postMessage(message: unknown): void;
  /** May return a promise that settles once the worker has exited; `dispose()` waits for it. */
  terminate(): unknown;
}

/** What the adapter calls when its worker speaks or dies; calls after retirement are ignored. */
export interface WasmPoolWorkerHooks {
  /** A message from the worker, unparsed. */
  message(raw: unknown): void;
  /** The worker failed or exited on its own; `why` becomes the failed call's message. */
  failed(why: string): void;
}

/** A module ready to post: its identity (the sha256 of its bytes) and whatever the host sends. */
export interface PreparedWasmModule<M> {
  readonly digest: string;
  readonly module: M;
  /**
   * The worker may instantiate the module ahead of its next call (the binary runs no code at
   * instantiation and allocates little, see `instantiatesQuietly`): instance per call still
   * holds, since every instance serves exactly one call and is fresh when it does.
   */
  readonly spare?: boolean;
}

export interface WasmPoolTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WasmPoolCoreOptions<M, W extends WasmPoolWorker> {
  readonly size: number;
  readonly startWorker: (hooks: WasmPoolWorkerHooks) => W;
  /**
   * Hashes and checks the bytes (and may compile them); a failure is the call's answer. A
   * synchronous answer lets `call` post to a free worker before it returns (no microtask turn),
   * which a caller that then blocks for the reply relies on.
   */
  readonly prepare: (bytes: Uint8Array) => Result<PreparedWasmModule<M>> | Promise<Result<PreparedWasmModule<M>>>;
  /** The fields that carry a module in a call message (`{ module }` on Node, `{ bytes }` in a page). */
  readonly moduleFields: (module: M) => Record<string, unknown>;
  /** Defaults to the global timers; tests pass their own clock. */
  readonly timers?: WasmPoolTimers;
}

export interface WasmPoolCoreStats {
  readonly workers: number;
  readonly ready: number;
  readonly busy: number;
  readonly queued: number;
  /** Workers started over the pool's life, the first ones included. */
  readonly started: number;
  /** Workers terminated for a timeout, an abort, a malformed reply or a crash. */
  readonly replaced: number;
}

interface Job<M, W extends WasmPoolWorker> {
  readonly id: number;
  readonly request: WasmPoolRequest;
  readonly digest: string;
  readonly module: M;
  readonly spare: boolean;
  readonly resolve: (reply: WasmPoolReply) => void;
  /** Told of the reply as it settles, before the promise's reactions (`call`'s `onSettled`). */
  readonly onSettled: ((reply: WasmPoolReply) => void) | undefined;
  slot?: Slot<M, W>;
  timer?: unknown;
  settled: boolean;
}

interface Slot<M, W extends WasmPoolWorker> {
  worker: W;
  readonly known: Set<string>;
  ready: boolean;
  retired: boolean;
  job?: Job<M, W>;
}

/** Workers that die before they are ready this many times in a row mean the install is broken. */
export const MAX_START_FAILURES = 3;

const globalTimers: WasmPoolTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Each worker runs one call at a time; calls queue FIFO. A call's timer starts when a ready worker
 * receives it; when it fires the call answers `wasm-timeout`, the worker is terminated (the only way
 * to stop running WASM) and a replacement starts at once. A worker that dies fails its call with
 * `internal` and is replaced; if workers keep dying before they are ready (a broken install) the
 * pool stops respawning and fails calls instead of looping. An aborted call that is running costs
 * its worker the same way.
 */
export class WasmPoolCore<M, W extends WasmPoolWorker> {
  readonly size: number;
  readonly #options: WasmPoolCoreOptions<M, W>;
  readonly #timers: WasmPoolTimers;
  readonly #slots = new Set<Slot<M, W>>();
  readonly #queue: Job<M, W>[] = [];
  readonly #exiting = new Set<Promise<unknown>>();
  readonly #aborters = new WeakMap<AbortSignal, Set<Job<M, W>>>();
  #nextId = 1;
  #started = 0;
  #replaced = 0;
  #startFailures = 0;
  #broken: string | undefined;
  #disposed = false;

  constructor(options: WasmPoolCoreOptions<M, W>) {
    this.#options = options;
    this.#timers = options.timers ?? globalTimers;
    this.size = Math.max(1, Math.floor(options.size));
    for (let i = 0; i < this.size; i++) this.#spawn();
  }

  /**
   * `onSettled`, when given, is told of the reply synchronously as it settles — whether at once (a
   * refusal) or when a worker answers — so a caller that blocks this thread for it (WasmLanes'
   * `callNow`) needs no microtask turn.
   */
  call(request: WasmPoolRequest, onSettled?: (reply: WasmPoolReply) => void): Promise<WasmPoolReply> {
    const now = (answer: WasmPoolReply): Promise<WasmPoolReply> => {
      onSettled?.(answer);
      return Promise.resolve(answer);
    };
    if (this.#disposed) return now(reply('internal', 'the WASM pool has been shut down', 0));
    if (request.signal?.aborted) return now(aborted());
    const prepared = this.#options.prepare(request.bytes);
    return prepared instanceof Promise ? prepared.then((p) => this.#enqueue(request, p, onSettled)) : this.#enqueue(request, prepared, onSettled);
  }

  #enqueue(request: WasmPoolRequest, prepared: Result<PreparedWasmModule<M>>, onSettled?: (reply: WasmPoolReply) => void): Promise<WasmPoolReply> {
    const now = (answer: WasmPoolReply): Promise<WasmPoolReply> => {
      onSettled?.(answer);
      return Promise.resolve(answer);
    };
    if (!prepared.ok) return now({ ...prepared, runMs: 0 });
    if (this.#disposed) return now(reply('internal', 'the WASM pool has been shut down', 0));
    if (this.#broken) return now(reply('internal', this.#broken, 0));
    if (request.signal?.aborted) return now(aborted());

    return new Promise<WasmPoolReply>((resolve) => {
      const job: Job<M, W> = {
        id: this.#nextId++,
        request,
        digest: prepared.value.digest,
        module: prepared.value.module,
        spare: prepared.value.spare === true,
        resolve,
        onSettled,
        settled: false,
      };
      if (request.signal) this.#watch(request.signal, job);
      this.#queue.push(job);
      this.#pump();
    });
  }

  stats(): WasmPoolCoreStats {
    let ready = 0;
    let busy = 0;
    for (const s of this.#slots) {
      if (s.ready) ready++;
      if (s.job) busy++;
    }
    return { workers: this.#slots.size, ready, busy, queued: this.#queue.length, started: this.#started, replaced: this.#replaced };
  }

  /** The live workers, as the adapter started them. */
  workers(): W[] {
    return [...this.#slots].map((s) => s.worker);
  }

  /** Fails pending calls, terminates every worker and waits until all of them have exited. */
  async dispose(): Promise<void> {
    if (!this.#disposed) {
      this.#disposed = true;
      for (const job of this.#queue.splice(0)) this.#settle(job, reply('internal', 'the WASM pool was shut down before the call ran', 0));
      for (const slot of [...this.#slots]) {
        if (slot.job) this.#settle(slot.job, reply('internal', 'the WASM pool was shut down during the call', 0));
        this.#retire(slot);
      }
    }
    while (this.#exiting.size) await Promise.all([...this.#exiting]);
  }

  #spawn(): void {
    const slot = { known: new Set<string>(), ready: false, retired: false } as Slot<M, W>;
    slot.worker = this.#options.startWorker({
      message: (raw) => this.#onMessage(slot, raw),
      failed: (why) => this.#onExit(slot, why),
    });
    this.#slots.add(slot);
    this.#started++;
  }

  #onMessage(slot: Slot<M, W>, raw: unknown): void {
    if (slot.retired) return;
    const msg = parseWasmWorkerReply(raw);
    if (!msg) {
      if (slot.job) this.#settle(slot.job, reply('internal', 'the WASM worker sent a malformed reply', 0));
      this.#replace(slot);
      return;
    }
    if (msg.type === 'ready') {
      slot.ready = true;
      this.#startFailures = 0;
      this.#pump();
      return;
    }
    const job = slot.job;
    if (!job || msg.id !== job.id) return; // a late reply for a call already settled
    if (msg.type === 'missing') {
      this.#post(slot, job, true);
      return;
    }
    slot.job = undefined;
    this.#settle(job, msg.ok ? { ok: true, value: msg.value, runMs: msg.runMs } : reply(msg.code, msg.message, msg.runMs));
    this.#pump();
  }

  #onExit(slot: Slot<M, W>, why: string): void {
    if (slot.retired) return;
    if (!slot.ready) this.#startFailures++;
    if (slot.job) this.#settle(slot.job, reply('internal', why, 0));
    if (this.#startFailures >= MAX_START_FAILURES) {
      this.#broken = `WASM workers fail to start: ${why}`;
      for (const job of this.#queue.splice(0)) this.#settle(job, reply('internal', this.#broken, 0));
      this.#retire(slot);
      return;
    }
    this.#replace(slot);
  }

  #pump(): void {
    if (this.#disposed) return;
    for (const slot of this.#slots) {
      if (!this.#queue.length) return;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.#queue.shift() as Job<M, W>;
      slot.job = job;
      job.slot = slot;
      this.#post(slot, job, !slot.known.has(job.digest));
      const { timeoutMs } = job.request;
      job.timer = this.#timers.setTimeout(() => {
        this.#settle(job, reply('wasm-timeout', `\`${job.request.exportName}\` ran longer than its ${timeoutMs} ms limit and was stopped`, timeoutMs));
        this.#replace(slot);
      }, timeoutMs);
    }
  }

  #post(slot: Slot<M, W>, job: Job<M, W>, withModule: boolean): void {
    slot.known.add(job.digest);
    slot.worker.postMessage({
      type: 'call',
      id: job.id,
      digest: job.digest,
      exportName: job.request.exportName,
      args: [...job.request.args],
      ...(job.spare ? { spare: true } : {}),
      ...(withModule ? this.#options.moduleFields(job.module) : {}),
    });
  }

  /**
   * One abort listener per signal, not per call: a run's dispatcher passes the same signal with
   * every call, and adding and removing an EventTarget listener per call was a measurable part of
   * a call's host-side cost.
   */
  #watch(signal: AbortSignal, job: Job<M, W>): void {
    let jobs = this.#aborters.get(signal);
    if (!jobs) {
      const live = new Set<Job<M, W>>();
      jobs = live;
      this.#aborters.set(signal, live);
      signal.addEventListener(
        'abort',
        () => {
          for (const j of [...live]) this.#abortJob(j);
        },
        { once: true },
      );
    }
    jobs.add(job);
  }

  #abortJob(job: Job<M, W>): void {
    if (job.settled) return;
    const at = this.#queue.indexOf(job);
    if (at >= 0) this.#queue.splice(at, 1);
    const running = job.slot && job.slot.job === job ? job.slot : undefined;
    this.#settle(job, aborted());
    // A running call can only be stopped by stopping its worker.
    if (running) this.#replace(running);
  }

  #settle(job: Job<M, W>, result: WasmPoolReply): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer !== undefined) this.#timers.clearTimeout(job.timer);
    if (job.request.signal) this.#aborters.get(job.request.signal)?.delete(job);
    if (job.slot && job.slot.job === job) job.slot.job = undefined;
    job.onSettled?.(result);
    job.resolve(result);
  }

  /** Terminate a worker and, unless the pool is going away, start its replacement at once. */
  #replace(slot: Slot<M, W>): void {
    if (slot.retired) return;
    this.#retire(slot);
    this.#replaced++;
    if (!this.#disposed && !this.#broken) this.#spawn();
    this.#pump();
  }

  #retire(slot: Slot<M, W>): void {
    if (slot.retired) return;
    slot.retired = true;
    this.#slots.delete(slot);
    const exit = Promise.resolve(slot.worker.terminate()).catch(() => undefined);
    this.#exiting.add(exit);
    void exit.finally(() => this.#exiting.delete(exit));
  }
}

function reply(code: ErrorCode, message: string, runMs: number): WasmPoolReply {
  return { ...fail(code, message), runMs };
}

function aborted(): WasmPoolReply {
  return reply('timeout', 'the run ended before the WASM call finished', 0);
}
