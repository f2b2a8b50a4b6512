// The WASM pool's scheduling, written once for Node (worker_threads) and the browser (Web Workers).
// Each host keeps a thin adapter that says how to start a worker, how to prepare a module (hash,
// check, maybe compile) and how a module travels in a call; everything else lives here so budgets
// and failures read the same in both places (the rules: WasmPoolCore).
//
// Ownership: the core owns its workers and timers; `dispose()` fails what is pending and resolves
// once every worker — including ones terminated for timeouts — has finished terminating. Workers
// number between `keep` (idle) and `max`; above `size` only as the spare beside a held worker.

import type { ErrorCode } from '../../protocol/codes.ts';
import { fail, type Result } from '../../protocol/result.ts';
import type { WasmPoolReply, WasmPoolRequest } from './wasm-dispatcher.ts';
import type { MemoryShape } from './instance-supply.mjs';
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
  /**
   * The module imports its one memory from the host (shared/packs/wasm-memory-import.ts), with
   * these limits: the worker gives each call a kept memory zeroed in full
   * (shared/sandbox/wasm/instance-supply.mjs). Sent with the module.
   */
  readonly memory?: MemoryShape;
}

export interface WasmPoolTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds, monotonic. */
  now(): number;
}

export interface WasmPoolCoreOptions<M, W extends WasmPoolWorker> {
  /** Workers that serve calls at once (the pool's size); queued calls start workers up to it. */
  readonly size: number;
  /** Workers kept while idle, started with the pool (default `size`: a fixed pool). */
  readonly keep?: number;
  /** Most workers at once (default `size`); above `size` only as the spare beside a held worker. */
  readonly max?: number;
  /** An idle worker beyond `keep` retires after this long idle (default IDLE_RETIRE_MS). */
  readonly idleMs?: number;
  /** A call running this long holds its worker (default HELD_AFTER_MS). */
  readonly heldMs?: number;
  /**
   * Told once when a worker's call becomes held, with the thread id the worker reported; may lower
   * the worker's priority and return what raises it again (false: it cannot, and the worker then
   * retires once its call ends, so a lowered worker never serves another call).
   */
  readonly held?: (worker: W, tid: number | undefined) => (() => boolean) | undefined;
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
  /** Workers retired after `idleMs` idle, beyond `keep`. */
  readonly retired: number;
}

interface Job<M, W extends WasmPoolWorker> {
  readonly id: number;
  readonly request: WasmPoolRequest;
  readonly digest: string;
  readonly module: M;
  readonly spare: boolean;
  readonly memory: MemoryShape | undefined;
  readonly resolve: (reply: WasmPoolReply) => void;
  /** Told of the reply as it settles, before the promise's reactions (`call`'s `onSettled`). */
  readonly onSettled: ((reply: WasmPoolReply) => void) | undefined;
  slot?: Slot<M, W>;
  timer?: unknown;
  /** When a worker received it. */
  postedAt: number;
  /** Whether `held` was told. */
  heldNoted: boolean;
  settled: boolean;
}

interface Slot<M, W extends WasmPoolWorker> {
  worker: W;
  readonly known: Set<string>;
  ready: boolean;
  retired: boolean;
  job?: Job<M, W>;
  /** When it last finished a call, or became ready. */
  idleSince: number;
  /** The thread id it reported when ready. */
  tid?: number;
  /** What `held` returned for its current call. */
  restore?: () => boolean;
}

/** Workers that die before they are ready this many times in a row mean the install is broken. */
export const MAX_START_FAILURES = 3;
/**
 * A call running this long holds its worker, so a spare may start beside it. Scalar exports answer
 * in well under a millisecond; a worker start costs ~50 ms of CPU (bench lanes), so a legitimate
 * 10 ms export should not start one.
 */
export const HELD_AFTER_MS = 50;
/** An idle worker beyond `keep` retires after this long: a burst's workers go back within seconds. */
export const IDLE_RETIRE_MS = 3_000;

const globalTimers: WasmPoolTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => performance.now(),
};

/** The pool's own upkeep must not keep a process alive (Node timers have `unref`; a page's are numbers). */
function unref(handle: unknown): void {
  (handle as { unref?: () => void } | undefined)?.unref?.();
}

/**
 * Each worker runs one call at a time; calls queue FIFO. A call's timer starts when a ready worker
 * receives it; when it fires the call answers `wasm-timeout` and the worker is terminated (the only
 * way to stop running WASM). An aborted call that is running costs its worker the same way: a run
 * that ended or passed its deadline has its calls stopped at once. A worker that dies fails its
 * call with `internal`; if workers keep dying before they are ready (a broken install) the pool
 * stops starting them and fails calls instead of looping.
 *
 * How many workers (`#ensure`): at least `keep`; as many more as queued calls need, up to `size`;
 * and while every worker is held (its call has run `heldMs`: an export that spins), one more beside
 * them, up to `max` — so a call of another run, or of the next run once the spinning one is stopped,
 * finds a started worker rather than waiting for the spin to end or for a worker to start. A
 * stopped worker is replaced only as these rules need; idle ones beyond `keep` retire after `idleMs`.
 */
export class WasmPoolCore<M, W extends WasmPoolWorker> {
  readonly size: number;
  readonly keep: number;
  readonly max: number;
  readonly #idleMs: number;
  readonly #heldMs: number;
  readonly #options: WasmPoolCoreOptions<M, W>;
  readonly #timers: WasmPoolTimers;
  readonly #slots = new Set<Slot<M, W>>();
  readonly #queue: Job<M, W>[] = [];
  readonly #exiting = new Set<Promise<unknown>>();
  readonly #aborters = new WeakMap<AbortSignal, Set<Job<M, W>>>();
  #nextId = 1;
  #started = 0;
  #replaced = 0;
  #retired = 0;
  #heldTimer: unknown;
  #idleTimer: unknown;
  #startFailures = 0;
  #broken: string | undefined;
  #disposed = false;

  constructor(options: WasmPoolCoreOptions<M, W>) {
    this.#options = options;
    this.#timers = options.timers ?? globalTimers;
    this.size = Math.max(1, Math.floor(options.size));
    this.keep = Math.min(this.size, Math.max(0, Math.floor(options.keep ?? this.size)));
    this.max = Math.max(this.size, Math.floor(options.max ?? this.size));
    this.#idleMs = options.idleMs ?? IDLE_RETIRE_MS;
    this.#heldMs = options.heldMs ?? HELD_AFTER_MS;
    this.#ensure();
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
        memory: prepared.value.memory,
        resolve,
        onSettled,
        postedAt: 0,
        heldNoted: false,
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
    return {
      workers: this.#slots.size,
      ready,
      busy,
      queued: this.#queue.length,
      started: this.#started,
      replaced: this.#replaced,
      retired: this.#retired,
    };
  }

  /** The live workers, as the adapter started them. */
  workers(): W[] {
    return [...this.#slots].map((s) => s.worker);
  }

  /** Fails pending calls, terminates every worker and waits until all of them have exited. */
  async dispose(): Promise<void> {
    if (!this.#disposed) {
      this.#disposed = true;
      this.#clearUpkeep();
      for (const job of this.#queue.splice(0)) this.#settle(job, reply('internal', 'the WASM pool was shut down before the call ran', 0));
      for (const slot of [...this.#slots]) {
        if (slot.job) this.#settle(slot.job, reply('internal', 'the WASM pool was shut down during the call', 0));
        this.#retire(slot);
      }
    }
    while (this.#exiting.size) await Promise.all([...this.#exiting]);
  }

  #spawn(): void {
    const slot = { known: new Set<string>(), ready: false, retired: false, idleSince: 0 } as Slot<M, W>;
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
      if (msg.tid !== undefined) slot.tid = msg.tid;
      slot.idleSince = this.#timers.now();
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
    slot.idleSince = this.#timers.now();
    this.#settle(job, msg.ok ? { ok: true, value: msg.value, runMs: msg.runMs } : reply(msg.code, msg.message, msg.runMs));
    const restore = slot.restore;
    slot.restore = undefined;
    if (restore && !restore()) {
      this.#retire(slot);
      this.#replaced++;
    }
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
      if (!this.#queue.length) break;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.#queue.shift() as Job<M, W>;
      slot.job = job;
      job.slot = slot;
      job.postedAt = this.#timers.now();
      this.#post(slot, job, !slot.known.has(job.digest));
      job.timer = this.#timers.setTimeout(() => this.#timeOut(slot, job), job.request.timeoutMs);
    }
    this.#ensure();
  }

  /** The call ran past its limit: it answers `wasm-timeout`, and its worker is stopped. */
  #timeOut(slot: Slot<M, W>, job: Job<M, W>): void {
    const { timeoutMs } = job.request;
    this.#settle(job, reply('wasm-timeout', `\`${job.request.exportName}\` ran longer than its ${timeoutMs} ms limit and was stopped`, timeoutMs));
    this.#replace(slot);
  }

  /**
   * Times out, now, the running calls past their limit: for a caller that blocks this thread
   * (WasmLanes' `callNow`), whose timers cannot fire meanwhile.
   */
  timeOutOverdue(): void {
    const now = this.#timers.now();
    for (const slot of [...this.#slots]) {
      const job = slot.job;
      if (job && !job.settled && now - job.postedAt >= job.request.timeoutMs) this.#timeOut(slot, job);
    }
  }

  /**
   * What the pool's timers do, now: calls past their limit time out, and held calls are noted (a
   * spare worker starts beside them). For a caller whose thread has not run its event loop for a
   * while (a sandbox worker inside a long run's interrupt poll, answering a nested run's call).
   */
  upkeep(): void {
    this.timeOutOverdue();
    this.#ensure();
  }

  /** Starts the workers the rules in the class comment call for, and watches for held ones. */
  #ensure(): void {
    if (this.#disposed || this.#broken) return;
    const now = this.#timers.now();
    let live = 0;
    let free = 0; // idle or still starting
    let held = 0;
    let soonest = Infinity; // when the next running call becomes held
    for (const s of this.#slots) {
      live++;
      if (!s.job) free++;
      else if (now - s.job.postedAt >= this.#heldMs) {
        held++;
        if (!s.job.heldNoted) {
          s.job.heldNoted = true;
          s.restore = this.#options.held?.(s.worker, s.tid);
        }
      } else soonest = Math.min(soonest, s.job.postedAt + this.#heldMs);
    }
    const waiting = this.#queue.length;
    let start = Math.max(0, this.keep - live);
    if (waiting > free + start) start += Math.max(0, Math.min(waiting - free - start, this.size - live - start));
    // Every worker held: one more beside them (a worker busy with a short call is free again soon).
    if (held > 0 && held === live + start && live + start < this.max) start++;
    for (let i = 0; i < start; i++) this.#spawn();
    // One upkeep timer for the pool, only while a spare could still be started or `held` be told.
    if (this.#heldTimer === undefined && soonest < Infinity && (live + start < this.max || this.#options.held)) {
      this.#heldTimer = this.#timers.setTimeout(
        () => {
          this.#heldTimer = undefined;
          this.#ensure();
        },
        Math.max(1, soonest - now),
      );
      unref(this.#heldTimer);
    }
    this.#armIdle();
  }

  /**
   * Idle workers that may retire, the longest idle first: all but one while every other worker is
   * held (that one is the spare beside them, see `#ensure`).
   */
  #idleCandidates(now: number): Slot<M, W>[] {
    const idle: Slot<M, W>[] = [];
    let held = 0;
    for (const s of this.#slots) {
      if (s.ready && !s.job) idle.push(s);
      else if (s.job && now - s.job.postedAt >= this.#heldMs) held++;
    }
    idle.sort((x, y) => x.idleSince - y.idleSince);
    return held > 0 && held + idle.length === this.#slots.size ? idle.slice(0, -1) : idle;
  }

  /** Arms the idle timer for the longest idle worker beyond `keep` (one timer for the pool). */
  #armIdle(): void {
    if (this.#idleTimer !== undefined || this.#disposed || this.#slots.size <= this.keep) return;
    const first = this.#idleCandidates(this.#timers.now())[0];
    if (!first) return;
    this.#idleTimer = this.#timers.setTimeout(
      () => {
        this.#idleTimer = undefined;
        const now = this.#timers.now();
        for (const s of this.#idleCandidates(now)) {
          if (this.#slots.size <= this.keep || now - s.idleSince < this.#idleMs) break;
          this.#retire(s);
          this.#retired++;
        }
        this.#armIdle();
      },
      Math.max(1, first.idleSince + this.#idleMs - this.#timers.now()),
    );
    unref(this.#idleTimer);
  }

  #clearUpkeep(): void {
    if (this.#heldTimer !== undefined) this.#timers.clearTimeout(this.#heldTimer);
    if (this.#idleTimer !== undefined) this.#timers.clearTimeout(this.#idleTimer);
    this.#heldTimer = undefined;
    this.#idleTimer = undefined;
  }

  #post(slot: Slot<M, W>, job: Job<M, W>, withModule: boolean): void {
    slot.known.add(job.digest);
    slot.worker.postMessage({
      type: 'call',
      id: job.id,
      digest: job.digest,
      exportName: job.request.exportName,
      args: [...job.request.args],
      ...(job.request.abi ? { abi: job.request.abi } : {}),
      ...(job.spare ? { spare: true } : {}),
      ...(withModule ? this.#options.moduleFields(job.module) : {}),
      ...(withModule && job.memory ? { memory: job.memory } : {}),
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

  /** Terminate a worker; a replacement starts as `#ensure` says (at once while below `keep`). */
  #replace(slot: Slot<M, W>): void {
    if (slot.retired) return;
    this.#retire(slot);
    this.#replaced++;
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
