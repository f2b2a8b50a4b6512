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
//
// Fairness under hostile load (issue 17): a run that has run for `longRunMs` is long. A host may
// let the core start extra workers, up to `maxWorkers`, so that `size` workers stay free of long
// runs (a run spinning to its deadline no longer stalls everyone queued behind it; the OS
// time-slices the threads), and extra workers retire once idle for `idleRetireMs`. A worker that
// supports holding (`KernelWorker.hold`) has a long run that keeps running guest code (it has
// made `holdAfterPolls` interrupt polls) held at its next poll while a shorter run is running or a
// worker is starting, so short runs get the cores. Polls rather than time decide it: an ordinary
// run slowed by a busy machine can take tens of ms yet makes hardly any polls, and must not be
// held behind every newer one; a loop makes thousands a second. Held runs take turns on what
// cores the short ones leave (see `#balance`). The worker keeps held time out of the run's clock (its result
// never changes) and the watchdog here adds it back; a run is held at most `HOLD_BUDGET_MS` in
// all, so none starves however much short work keeps coming.
//
// A worker busy with a run that polls can also serve short runs without a new worker (a host
// gives `nestedRunMessage`): a queued run is posted to it and the worker rung; at its run's next
// poll it runs the short one nested, to its end, in a sandbox of its own, the long run waiting
// (its clock leaves that time out too). A nested run may make no host call and has a small
// budget: past either it is given back untouched and queued again, to run as usual. Starting a
// worker costs hundreds of milliseconds of CPU, so without this a burst of hostile runs left
// ordinary ones waiting on worker starts (measured: median 1.6 s, first burst); see `#nest`. A
// worker takes a nested run only at a poll: one that reaches it while its run awaits a host call or
// a WASM lane is given back, and a short run that finds no worker to nest in for a moment (every
// worker's run waits without polling) gets a worker of its own (`#wanted`).

import type { ErrorCode } from '../protocol/codes.ts';
import { LIMITS } from '../protocol/limits.ts';
import { emptyReceipt, runNeedsWasm, type HostCallResult, type KernelRunRequest, type RunLog, type RunResult } from '../protocol/run.ts';
import { HOLD_AFTER_POLLS, HOLD_BUDGET_MS } from './hold-budget.ts';
import type { KernelHostCall, KernelHostCoreOptions, KernelWorker, KernelWorkerHooks } from './kernel-host-contract.ts';
import { timeoutMessage } from './job-loop.ts';
import { parseFromKernelWorker, type FromKernelWorker, type HostResultMessage } from './kernel-worker-messages.ts';
import { SentSources } from './source-cache.ts';

export type { KernelHostCall, KernelHostCoreOptions, KernelHostWording, KernelWorker, KernelWorkerHooks, RunHoldSwitch } from './kernel-host-contract.ts';

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
  /** Host calls forwarded here and not yet answered: while any is out, the run waits rather than computes. */
  calls: number;
  /** May be sent to run nested in a worker busy with a long run (false once it gave a nested try back). */
  nestable: boolean;
  /** Answered as cancelled while sent nested: nothing more is answered for it. */
  cancelled: boolean;
}

interface Slot<P> {
  readonly worker: KernelWorker;
  ready: boolean;
  job: Job<P> | undefined;
  watchdog: ReturnType<typeof setTimeout> | undefined;
  retired: boolean;
  /** The job has run for `longRunMs`. */
  long: boolean;
  /** Marks the job long; armed at dispatch when the host can hold runs or add workers. */
  longTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the job was posted to the worker. */
  dispatchedAt: number;
  /** Held time already added to the job's watchdog. */
  extendedMs: number;
  /** Retires this idle worker if it is still surplus when it fires. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** A run sent to run nested inside the job's interrupt polls; it becomes the job if the job ends first. */
  nested: Job<P> | undefined;
  /** The job's run id when the worker could not take a nested run during it (no sandbox ready): none is sent again meanwhile. */
  noNestFor: number | undefined;
  /**
   * The job's poll count when a nested run reached the worker outside a poll (the job awaited a
   * host call or a WASM lane) and was given back: none is sent again until the job has polled since.
   */
  nestAfterPolls: number;
  /** The module sources this worker keeps, as sent (source-cache.ts). */
  readonly sent: SentSources;
}

const MAX_START_FAILURES = 3;
const LONG_RUN_MS = 30;
/** How often held runs and running ones are chosen again while some wait. */
const ROTATE_MS = 100;
/**
 * Held runs go on only once no short run has been running or queued for this long. The thread
 * that takes requests and posts runs (the app's main thread) needs a core too, and between two
 * short runs it is busy with the next request: a long run let go in that gap took its core
 * (measured in bench load: ordinary median ×2 with a held loop let go whenever no short run ran).
 */
const QUIET_MS = 20;
/** The longest a run that cannot run nested waits, while short work goes on, before a worker starts for it. */
const SPAWN_AFTER_MS = 500;
/** How long a run counts as not yet known to be long (see `#freshRuns`). */
const FRESH_MS = 10;
const IDLE_RETIRE_MS = 30_000;
/** How soon the core looks again for a worker to nest a queued run in while none has a long run that polls. */
const NEST_RECHECK_MS = 5;
/** A run polled this recently may have a run nested in it (a loop polls several times a millisecond). */
const NEST_POLLED_WITHIN_MS = 2;
/**
 * A run that could run nested but has waited this long with no worker to nest in (every worker's
 * run awaits a host call or a WASM lane, or computes inside one engine call) gets a worker of its
 * own, as a run that cannot run nested does: nothing may ever nest it, and waiting for runs that
 * neither poll nor end could cost it their whole time limit (issue 26: 7.6 s behind two WASM spins).
 */
const STRANDED_AFTER_MS = 50;
const CANCELLED_MESSAGE = 'The run was stopped before it finished.';
// A run stopped before a worker took it: say that none of its code ran, or a user who waited on a
// starting sandbox (the first run takes a second or more) reads its empty logs as logs lost.
const CANCELLED_QUEUED_MESSAGE = 'The run was stopped while it waited for the sandbox to be ready; none of its code ran.';

export class KernelHostCore<P> {
  readonly #options: KernelHostCoreOptions<P>;
  readonly #maxWorkers: number;
  readonly #longRunMs: number;
  readonly #holdAfterPolls: number;
  readonly #idleRetireMs: number;
  readonly #slots = new Set<Slot<P>>();
  readonly #queue: Job<P>[] = [];
  #nextRunId = 1;
  #closed = false;
  /** Workers that died before becoming ready, in a row: a broken install must not respawn forever. */
  #startFailures = 0;
  /** Set once no worker can start: every run's answer from then on. */
  #broken: string | undefined;
  /** The one timer that looks again (`#pump`: dispatch, nest, balance), set for the earliest time anything asked (`#lookAgainIn`). */
  #again: ReturnType<typeof setTimeout> | undefined;
  #againAt = Number.POSITIVE_INFINITY;
  /** When short work (a short or nested run, a queued one, a starting worker) was last seen (see `QUIET_MS`). */
  #shortSeenAt = Number.NEGATIVE_INFINITY;
  /** What the host was last told of short work (`pressure`). */
  #pressure = false;
  /** Terminations still under way; `close()` waits for them. */
  readonly #exits = new Set<Promise<unknown>>();
  /** Workers started over the host's life, replacements included (for tests and diagnostics). */
  started = 0;

  constructor(options: KernelHostCoreOptions<P>) {
    this.#options = options;
    this.#maxWorkers = Math.max(options.size, options.maxWorkers ?? options.size);
    this.#longRunMs = options.longRunMs ?? LONG_RUN_MS;
    this.#holdAfterPolls = options.holdAfterPolls ?? HOLD_AFTER_POLLS;
    this.#idleRetireMs = options.idleRetireMs ?? IDLE_RETIRE_MS;
    for (let i = 0; i < options.size; i++) this.#spawn();
  }

  /** Live workers: `size` while the host is open and workers start, more (up to `maxWorkers`) while long runs hold some. */
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
        calls: 0,
        nestable: this.#options.nestedRunMessage !== undefined && !runNeedsWasm(request),
        cancelled: false,
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
      clearTimeout(this.#again);
      const { closedQueued, closedRunning } = this.#options.wording;
      for (const job of this.#queue.splice(0)) job.resolve(this.#failure(job, 'sandbox-crashed', closedQueued));
      for (const slot of [...this.#slots]) {
        for (const job of [slot.job, slot.nested]) if (job) job.resolve(this.#failure(job, 'sandbox-crashed', closedRunning));
        slot.job = undefined;
        slot.nested = undefined;
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
    for (const slot of this.#slots) {
      if (slot.job === job) this.#fail(slot, 'cancelled', CANCELLED_MESSAGE);
      else if (slot.nested === job) {
        // The worker may run it yet (nested, or as its next run if its long run ends first):
        // answered now, and its worker goes if it would run it as its own run (see `#onMessage`).
        job.cancelled = true;
        job.resolve(this.#failure(job, 'cancelled', CANCELLED_MESSAGE));
      }
    }
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
    slot = {
      worker: this.#options.startWorker(hooks),
      ready: false,
      job: undefined,
      watchdog: undefined,
      retired: false,
      long: false,
      longTimer: undefined,
      dispatchedAt: 0,
      extendedMs: 0,
      idleTimer: undefined,
      nested: undefined,
      noNestFor: undefined,
      nestAfterPolls: -1,
      sent: new SentSources(),
    };
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
    if (message.type === 'resend') return this.#resend(slot, message.runId);
    if (slot.nested && message.runId === slot.nested.runId) return this.#onNested(slot, slot.nested, message);
    const job = slot.job;
    if (!job || message.runId !== job.runId) return;
    if (message.type === 'log') {
      job.logs.push(message.entry);
      return;
    }
    if (message.type === 'host-call') {
      job.calls++;
      void this.#answer(job, message).then((result) => {
        job.calls--;
        if (slot.job !== job || slot.retired) return;
        this.#reply(slot, { type: 'host-result', runId: job.runId, callId: message.callId, result });
      });
      return;
    }
    if (message.type === 'requeue') return;
    this.#endJob(slot);
    job.resolve(message.result);
    if (!message.healthy) return this.#replace(slot);
    // A run sent nested that the worker had not taken yet is its next run now (it reads it as one).
    const next = slot.nested;
    slot.nested = undefined;
    if (next?.cancelled) return this.#replace(slot);
    if (next) this.#start(slot, next);
    this.#pump();
  }

  /**
   * The worker no longer keeps a source the run left out (source-cache.ts): it has not started the
   * run; the run goes again in full (every source), as the slot's run or nested.
   */
  #resend(slot: Slot<P>, runId: number): void {
    slot.sent.forget();
    const job = slot.job?.runId === runId ? slot.job : slot.nested?.runId === runId ? slot.nested : undefined;
    if (!job) return;
    const wire = slot.sent.wire(job.request);
    const nested = job === slot.nested;
    const message = nested
      ? this.#options.nestedRunMessage!(job.runId, wire.request, wire.sources)
      : this.#options.runMessage(job.runId, wire.request, job.ports, wire.sources);
    try {
      slot.worker.postMessage(message);
    } catch (error) {
      slot.sent.forget();
      return this.#crashed(slot, `the run could not be passed to the sandbox worker again: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (nested) slot.worker.hold?.ring();
  }

  /** What the worker says of the run sent to it nested: answered, or given back. */
  #onNested(slot: Slot<P>, job: Job<P>, message: Exclude<FromKernelWorker, { type: 'ready' | 'boot-failed' }>): void {
    if (message.type === 'host-call') {
      // A nested run may make no host call (the worker gives it back at its first): answered, so
      // a worker that broke that rule waits on nothing.
      const result: HostCallResult = { ok: false, code: 'internal', message: 'A run nested in another may make no host call.' };
      return this.#reply(slot, { type: 'host-result', runId: job.runId, callId: message.callId, result });
    }
    if (message.type !== 'done' && message.type !== 'requeue') return;
    slot.nested = undefined;
    if (!job.cancelled) {
      if (message.type === 'done') job.resolve(message.result);
      else {
        job.nestable = message.nestable;
        if (message.notAtPoll) slot.nestAfterPolls = slot.worker.hold?.polls() ?? Number.POSITIVE_INFINITY;
        else if (message.nestable) slot.noNestFor = slot.job?.runId;
        this.#queue.unshift(job);
      }
    }
    this.#pump();
  }

  /** The slot's job is over (answered, failed or never started): its timers and hold go. */
  #endJob(slot: Slot<P>): void {
    slot.noNestFor = undefined;
    slot.nestAfterPolls = -1;
    clearTimeout(slot.watchdog);
    clearTimeout(slot.longTimer);
    slot.job = undefined;
    slot.long = false;
    slot.longTimer = undefined;
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
    // Where runs can run nested, at most `size` runs not yet known to be long start on workers of
    // their own: a free worker beyond them (one an earlier burst started) would let a run that
    // turns out hostile spin on it alongside the others, while nested in a held long run it would
    // have given the core back within its budget (measured in bench load). Runs that cannot run
    // nested take any free worker.
    let fresh = this.#options.nestedRunMessage ? this.#freshRuns() : Number.NEGATIVE_INFINITY;
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) break;
      if (!slot.ready || slot.job || slot.retired) continue;
      const at = fresh < this.#options.size ? 0 : this.#queue.findIndex((queued) => !queued.nestable);
      if (at < 0) break;
      const job = this.#queue.splice(at, 1)[0]!;
      fresh++;
      this.#start(slot, job);
      try {
        const wire = slot.sent.wire(job.request);
        slot.worker.postMessage(this.#options.runMessage(job.runId, wire.request, job.ports, wire.sources));
      } catch (error) {
        // Nothing reached the worker: it stays free for the next run (and keeps no source of it).
        slot.sent.forget();
        this.#endJob(slot);
        job.resolve(
          this.#failure(job, 'invalid-data', `The run could not be passed to the sandbox worker: ${error instanceof Error ? error.message : String(error)}.`),
        );
        queueMicrotask(() => this.#pump());
      }
    }
    if (this.#queue.length > 0) this.#nest();
    this.#balance();
  }

  /**
   * Runs on workers of their own not yet known to be long: started less than `FRESH_MS` ago and not
   * polling enough to be held. (One that makes no polls past that — inside one native call, or
   * waiting on a WASM lane — is not held either way, and must not keep others from starting.)
   */
  #freshRuns(): number {
    const since = performance.now() - FRESH_MS;
    let fresh = 0;
    for (const slot of this.#slots) {
      if (slot.job && slot.dispatchedAt > since && (slot.worker.hold?.polls() ?? 0) < this.#holdAfterPolls) fresh++;
    }
    return fresh;
  }

  /** The job is the slot's: its clock, watchdog and long timer start (the worker has it, or is about to). */
  #start(slot: Slot<P>, job: Job<P>): void {
    slot.job = job;
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.extendedMs = 0;
    slot.nestAfterPolls = -1;
    slot.dispatchedAt = performance.now();
    slot.worker.hold?.reset();
    // Counted from dispatch, not from queueing: waiting for a free worker is not guest time.
    const limit = Math.min(job.request.timeoutMs, LIMITS.guestTimeoutMs);
    slot.watchdog = setTimeout(() => this.#watchdog(slot, job, limit), limit + this.#options.graceMs);
    if (slot.worker.hold || this.#maxWorkers > this.#options.size) {
      slot.longTimer = setTimeout(() => {
        slot.long = true;
        this.#balance();
      }, this.#longRunMs);
    }
  }

  /**
   * Queued runs that may run nested go to workers whose run keeps running guest code (it polls):
   * the worker runs one at its next poll, to its end, in a sandbox of its own, the long run waiting
   * meanwhile (its clock leaves that time out). So a worker busy with a run spinning to its
   * deadline still serves short runs, and a burst of hostile runs needs no new workers for the
   * ordinary ones. A nested run that needs a host call or runs past its budget is given back
   * untouched and queued again, to run as usual.
   */
  #nest(): void {
    const message = this.#options.nestedRunMessage;
    if (!message) return;
    for (const slot of this.#slots) {
      if (!this.#canNestIn(slot)) continue;
      const hold = slot.worker.hold!;
      const at = this.#queue.findIndex((queued) => queued.nestable);
      if (at < 0) return;
      const nested = this.#queue.splice(at, 1)[0]!;
      try {
        const wire = slot.sent.wire(nested.request);
        slot.worker.postMessage(message(nested.runId, wire.request, wire.sources));
      } catch {
        slot.sent.forget();
        nested.nestable = false;
        this.#queue.splice(at, 0, nested);
        continue;
      }
      slot.nested = nested;
      hold.ring();
    }
  }

  /**
   * Whether a queued run could be sent to the slot now, to run nested: its run polls (runs guest
   * code), polled just now (not inside one long native call, where mail would wait for it), has
   * hold budget to spare for the nested run's time, has no host call out, and has polled since a
   * nested run last reached it outside a poll.
   */
  #canNestIn(slot: Slot<P>): boolean {
    const hold = slot.worker.hold;
    const job = slot.job;
    if (!hold || !job || slot.nested || slot.retired || job.calls > 0 || slot.noNestFor === job.runId) return false;
    const polls = hold.polls();
    if (polls < this.#holdAfterPolls || polls <= slot.nestAfterPolls) return false;
    return hold.sincePollMs() <= NEST_POLLED_WITHIN_MS && hold.heldMs() < HOLD_BUDGET_MS / 2;
  }

  /**
   * Deadline + grace has passed since dispatch. Time the worker held the run is added back (its
   * clock excluded it), at most the hold budget + grace in all; then the worker goes.
   */
  #watchdog(slot: Slot<P>, job: Job<P>, limit: number): void {
    if (slot.job !== job || slot.retired) return;
    const held = Math.min(slot.worker.hold?.heldMs() ?? 0, HOLD_BUDGET_MS + this.#options.graceMs);
    if (held > slot.extendedMs) {
      const more = held - slot.extendedMs;
      slot.extendedMs = held;
      slot.watchdog = setTimeout(() => this.#watchdog(slot, job, limit), more);
      return;
    }
    this.#fail(slot, 'timeout', timeoutMessage(job.request.timeoutMs));
  }

  /**
   * Extra workers and holds, after anything that changes who runs what. Keeps `size` workers
   * free of long runs (up to `maxWorkers`) and lets surplus idle workers retire after
   * `idleRetireMs`. Holdable runs (long, running guest code) share what of `size` cores short
   * runs and starting workers leave: the ones that have run least (held time not counted) go on,
   * the others are held, and the choice is made again every `ROTATE_MS` while some wait or a long
   * run may yet become holdable — so a dozen runs spinning to their deadlines each still get their
   * whole time limit of running, as they would one after the other, while ordinary runs pass them.
   */
  #balance(): void {
    if (this.#closed) return;
    let live = 0;
    let long = 0;
    let short = 0;
    let starting = 0;
    let undecided = 0;
    // Long runs that use a core: those running guest code (holdable) and those computing where we
    // cannot hold them (allocating, in one engine call, a WASM call on a lane); not those waiting
    // on the host.
    const ranked: { slot: Slot<P>; holdable: boolean }[] = [];
    let idle = 0;
    for (const slot of this.#slots) {
      live++;
      if (slot.ready && !slot.job && !slot.retired) idle++;
      // A nested run uses its worker's core (its long run waits meanwhile).
      if (slot.nested) short++;
      if (!slot.ready) starting++;
      else if (slot.job && !slot.long) {
        // Not long yet, but running guest code poll after poll: it may be held like a long one.
        const hold = slot.worker.hold;
        if (hold && hold.polls() >= this.#holdAfterPolls) ranked.push({ slot, holdable: true });
        else short++;
      } else if (slot.job) {
        long++;
        const hold = slot.worker.hold;
        if (!hold) continue;
        const holdable = hold.polls() >= this.#holdAfterPolls;
        if (!holdable) undecided++;
        if (holdable || slot.job.calls === 0) ranked.push({ slot, holdable });
      }
    }
    const now = performance.now();
    // Short work: short and nested runs, starting workers, and queued runs that can run at once or
    // nested. Not queued runs that wait for a worker to come free: holding long runs back only
    // keeps their workers longer.
    if (short > 0 || starting > 0 || this.#queue.some((job) => job.nestable || idle > 0)) this.#shortSeenAt = now;
    const quietIn = this.#shortSeenAt + QUIET_MS - now;
    if (this.#pressure !== quietIn > 0) {
      this.#pressure = quietIn > 0;
      this.#options.pressure?.(this.#pressure);
    }
    // Workers kept: `size` free of long runs, up to the cap.
    const keep = Math.min(this.#maxWorkers, this.#options.size + long);
    const want = this.#options.nestedRunMessage ? this.#wanted(live, starting, idle, keep, quietIn, now) : keep;
    // Not while workers fail to start: replacements already retry, and a broken install must not multiply.
    if (this.#startFailures === 0 && !this.#broken) {
      for (; live < want; live++, starting++) this.#spawn();
    }
    // Once short work has been quiet a while, the cores short runs and starting workers leave go
    // to the long runs that have run least; the holdable ones past them are held (the others
    // cannot be, and run on regardless).
    const free = quietIn > 0 ? 0 : Math.max(0, this.#options.size - short - starting);
    if (ranked.length > 0) {
      const ran = (slot: Slot<P>) => now - slot.dispatchedAt - (slot.worker.hold?.heldMs() ?? 0);
      ranked.sort((a, b) => ran(a.slot) - ran(b.slot));
      ranked.forEach(({ slot, holdable }, i) => slot.worker.hold?.set(holdable && i >= free));
    }
    // Queued runs may find a worker to nest in once a run there polls.
    if (this.#options.nestedRunMessage && this.#queue.some((job) => job.nestable)) this.#lookAgainIn(NEST_RECHECK_MS);
    if (ranked.length > free || (undecided > 0 && free < this.#options.size)) this.#lookAgainIn(quietIn > 0 && ranked.length > 0 ? quietIn : ROTATE_MS);
    // The pressure word goes off once short work is quiet, even with no long run to let go.
    else if (this.#pressure && this.#options.pressure) this.#lookAgainIn(quietIn);
    let surplus = live - keep;
    for (const slot of this.#slots) if (slot.idleTimer) surplus--;
    for (const slot of this.#slots) {
      if (surplus <= 0) break;
      if (slot.job || !slot.ready || slot.idleTimer) continue;
      surplus--;
      slot.idleTimer = setTimeout(() => {
        slot.idleTimer = undefined;
        if (!slot.job && !slot.retired && this.#surplus() > 0) this.#retire(slot);
        this.#balance();
      }, this.#idleRetireMs);
    }
  }

  /**
   * Workers wanted where short runs can run nested: starting one costs hundreds of milliseconds of
   * CPU, which the runs under way would lose, and short runs need none (they run nested in the
   * long ones). So workers start only for queued runs that cannot run nested (they need a host
   * call or WASM, or gave a nested try back), beyond the free and starting workers, and only once
   * short work has been quiet for `QUIET_MS` or the oldest of them has waited `SPAWN_AFTER_MS` —
   * and for runs that could run nested but have waited `STRANDED_AFTER_MS` while no worker's run
   * polls (then no run would ever nest them, and the cores are not busy with short work).
   */
  #wanted(live: number, starting: number, idle: number, keep: number, quietIn: number, now: number): number {
    let waiting = 0;
    let oldest = now;
    // Runs that could run nested but have nowhere to: due once they have waited STRANDED_AFTER_MS.
    let stranded = 0;
    let strandedDueIn = Number.POSITIVE_INFINITY;
    // A worker running a nested run now will take the next one when it ends.
    const nowhereToNest = ![...this.#slots].some((slot) => slot.nested !== undefined || this.#canNestIn(slot));
    for (const job of this.#queue) {
      if (!job.nestable) {
        waiting++;
        oldest = Math.min(oldest, job.started);
      } else if (nowhereToNest) {
        const dueIn = job.started + STRANDED_AFTER_MS - now;
        if (dueIn <= 0) stranded++;
        else strandedDueIn = Math.min(strandedDueIn, dueIn);
      }
    }
    if (strandedDueIn < Number.POSITIVE_INFINITY) this.#lookAgainIn(strandedDueIn);
    if (waiting === 0 && stranded === 0) return live;
    const dueIn = waiting === 0 ? Number.POSITIVE_INFINITY : Math.min(quietIn, oldest + SPAWN_AFTER_MS - now);
    const due = stranded + (dueIn <= 0 ? waiting : 0);
    if (dueIn > 0 && dueIn < Number.POSITIVE_INFINITY) this.#lookAgainIn(dueIn);
    if (due === 0) return live;
    return Math.max(live, Math.min(keep, live + due - idle - starting));
  }

  /** Looks again in `ms` (`#pump`), unless it will sooner. */
  #lookAgainIn(ms: number): void {
    const at = performance.now() + ms;
    if (this.#again && this.#againAt <= at) return;
    clearTimeout(this.#again);
    this.#againAt = at;
    this.#again = setTimeout(() => {
      this.#again = undefined;
      this.#againAt = Number.POSITIVE_INFINITY;
      this.#pump();
    }, ms);
  }

  /** Live workers beyond what `#balance` keeps. */
  #surplus(): number {
    let long = 0;
    for (const slot of this.#slots) if (slot.job && slot.long) long++;
    return this.#slots.size - Math.min(this.#maxWorkers, this.#options.size + long);
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
    this.#endJob(slot);
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
    // A run sent nested is queued again first: nothing of it left the worker (or it ran whole, and its answer is lost with it).
    const nested = slot.nested;
    slot.nested = undefined;
    if (nested && !nested.cancelled && !this.#closed) this.#queue.unshift(nested);
    clearTimeout(slot.watchdog);
    clearTimeout(slot.longTimer);
    clearTimeout(slot.idleTimer);
    this.#slots.delete(slot);
    const exit = Promise.resolve(slot.worker.terminate()).catch(() => undefined);
    this.#exits.add(exit);
    void exit.then(() => this.#exits.delete(exit));
  }

  #failure(job: Job<P>, code: ErrorCode, message: string): RunResult {
    return { ok: false, code, message, logs: [...job.logs], receipt: { ...emptyReceipt(), wallMs: performance.now() - job.started } };
  }
}
