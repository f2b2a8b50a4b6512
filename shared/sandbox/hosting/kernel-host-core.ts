// The host side of kernel workers, written once for Node (worker_threads, the app's sandbox pool)
// and the browser (a Web Worker, the page's runner): a supervisor. It starts workers, queues runs,
// posts them, answers host calls, streams logs, and ends runs however they end — the outer
// watchdog terminates a worker at deadline + grace (native work inside one engine call cannot be
// interrupted), a worker that dies, sends what cannot be read or reports an unhealthy engine is
// replaced, and workers that keep dying before they are ready stop being respawned. Cancelling a
// running run costs its worker. Who runs where is not decided here: after anything that changes
// it, the core hands its scheduler (scheduler.ts) a snapshot and applies the decision. A run's
// host-side work belongs to the run: its abort signal fires when it ends, however it ends.

import type { ErrorCode } from '../../protocol/codes.ts';
import { LIMITS } from '../../protocol/limits.ts';
import { emptyReceipt, runNeedsWasm, type HostCallResult, type KernelRunRequest, type RunLog, type RunResult } from '../../protocol/run.ts';
import { HOLD_BUDGET_MS } from './hold-budget.ts';
import type { KernelHostCall, KernelHostCoreOptions, KernelWorker, KernelWorkerHooks } from './kernel-host-contract.ts';
import { timeoutMessage } from '../kernel/job-loop.ts';
import { parseFromKernelWorker, type FromKernelWorker, type HostResultMessage } from './kernel-worker-messages.ts';
import type { SchedulerSnapshot, SlotView } from './scheduler.ts';
import { SentSources } from '../supply/source-cache.ts';

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
  /** A run sent nested has made a host call: it ran in part, so it is never queued again. */
  committed: boolean;
  /** Nested tries given back for wall time alone or for want of a free WASM lane (`requeue`'s `slow`, `noLane`). */
  slowTries: number;
}

interface Slot<P> {
  readonly worker: KernelWorker;
  ready: boolean;
  job: Job<P> | undefined;
  watchdog: ReturnType<typeof setTimeout> | undefined;
  retired: boolean;
  /** The job has run for the scheduler's `longRunMs`. */
  long: boolean;
  /** Marks the job long; armed at dispatch when the scheduler has a `longRunMs`. */
  longTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the job was posted to the worker. */
  dispatchedAt: number;
  /** Held time already added to the job's watchdog. */
  extendedMs: number;
  /** Offers this idle worker for retirement when it fires (`idleDue`). */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The idle timer has fired: the next decision retires the worker if it is still surplus. */
  idleDue: boolean;
  /** A run sent to run nested inside the job's interrupt polls; it becomes the job if the job ends first. */
  nested: Job<P> | undefined;
  /** When `nested` was sent. */
  nestedAt: number;
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
/** Nested tries a run may give back for wall time alone before it waits for a worker of its own. */
const MAX_SLOW_NEST_TRIES = 3;
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
  /** The one timer that decides again, set for the earliest time a decision asked (`#lookAgainIn`). */
  #again: ReturnType<typeof setTimeout> | undefined;
  #againAt = Number.POSITIVE_INFINITY;
  /** The scheduler's memory between decisions (`SchedulerSnapshot`); `pressure` is also what the host was last told. */
  #shortSeenAt = Number.NEGATIVE_INFINITY;
  #pressure = false;
  /** Terminations still under way; `close()` waits for them. */
  readonly #exits = new Set<Promise<unknown>>();
  /** Workers started over the host's life, replacements included (for tests and diagnostics). */
  started = 0;

  constructor(options: KernelHostCoreOptions<P>) {
    this.#options = options;
    for (let i = 0; i < options.size; i++) this.#spawn();
  }

  /** Live workers: `size` while the host is open and workers start, more while the scheduler starts extra ones. */
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
        nestable: this.#options.nestedRunMessage !== undefined && (this.#options.nestsWasm === true || !runNeedsWasm(request)),
        cancelled: false,
        committed: false,
        slowTries: 0,
      };
      const onCancel = () => this.#cancel(job);
      if (this.#broken) return job.resolve(this.#failure(job, 'sandbox-crashed', this.#broken));
      if (cancel?.aborted) return job.resolve(this.#failure(job, 'cancelled', CANCELLED_QUEUED_MESSAGE));
      cancel?.addEventListener('abort', onCancel, { once: true });
      this.#queue.push(job);
      this.#look();
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
      idleDue: false,
      nested: undefined,
      nestedAt: 0,
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
      return this.#look();
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
    this.#look();
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
      ? this.#options.nestedRunMessage!(job.runId, wire.request, wire.sources, job.ports)
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
      // Answered like its own run's, and rung for: the worker waits for it inside the long run's
      // poll. The run has had an effect outside its sandbox now: it is never queued again.
      job.committed = true;
      job.calls++;
      void this.#answer(job, message).then((result) => {
        job.calls--;
        if (slot.nested !== job || slot.retired) return;
        this.#reply(slot, { type: 'host-result', runId: job.runId, callId: message.callId, result });
        slot.worker.hold?.ring();
      });
      return;
    }
    if (message.type !== 'done' && message.type !== 'requeue') return;
    slot.nested = undefined;
    if (!job.cancelled) {
      if (message.type === 'done') job.resolve(message.result);
      else {
        // A run given back for time alone, or for want of a free WASM lane there, may try again, a
        // few times; then it waits for a worker of its own. A worker with no lane free still takes
        // other nested runs: it was refused for them too, for the rest of its long run, and a run
        // awaiting a spinning export, bouncing from worker to worker, shut each to the ordinary
        // runs queued behind it (traced in bench load).
        job.nestable = message.slow || message.noLane ? ++job.slowTries < MAX_SLOW_NEST_TRIES : message.nestable;
        if (message.notAtPoll) slot.nestAfterPolls = slot.worker.hold?.polls() ?? Number.POSITIVE_INFINITY;
        // No sandbox ready: it cannot make one while its long run computes, so none is sent again meanwhile.
        else if (message.nestable && !message.slow && !message.noLane) slot.noNestFor = slot.job?.runId;
        this.#queue.unshift(job);
      }
    }
    this.#look();
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

  /** Asks the scheduler who runs where now, and applies its answer in the order `Decision` gives. */
  #look(): void {
    if (this.#closed) return;
    const slots = [...this.#slots];
    const queue = [...this.#queue];
    const decision = this.#options.scheduler.decide(this.#snapshot(slots, queue), performance.now());
    for (const slot of slots) slot.idleDue = false;
    for (const index of decision.retire) this.#retire(slots[index]!);
    for (const { slot, run } of decision.starts) this.#dispatch(slots[slot]!, queue[run]!);
    for (const { slot, run } of decision.nests) this.#nest(slots[slot]!, queue[run]!);
    this.#shortSeenAt = decision.shortSeenAt;
    if (this.#pressure !== decision.pressure) {
      this.#pressure = decision.pressure;
      this.#options.pressure?.(decision.pressure);
    }
    for (let i = 0; i < decision.spawn; i++) this.#spawn();
    for (const { slot, held } of decision.holds) slots[slot]!.worker.hold?.set(held);
    if (decision.lookAgainInMs < Number.POSITIVE_INFINITY) this.#lookAgainIn(decision.lookAgainInMs);
    for (const { slot, afterMs } of decision.retireIdle) this.#offerRetireIn(slots[slot]!, afterMs);
  }

  #snapshot(slots: readonly Slot<P>[], queue: readonly Job<P>[]): SchedulerSnapshot {
    return {
      size: this.#options.size,
      slots: slots.map(slotView),
      queue,
      nesting: this.#options.nestedRunMessage !== undefined,
      reportsPressure: this.#options.pressure !== undefined,
      startsBlocked: this.#startFailures > 0 || this.#broken !== undefined,
      shortSeenAt: this.#shortSeenAt,
      pressure: this.#pressure,
    };
  }

  /** Posts a queued run to a free worker as its own run. */
  #dispatch(slot: Slot<P>, job: Job<P>): void {
    this.#queue.splice(this.#queue.indexOf(job), 1);
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
      queueMicrotask(() => this.#look());
    }
  }

  /**
   * Posts a queued run to a worker busy with a long run that polls, and rings it: at that run's
   * next poll it runs this one nested, to its end, in a sandbox of its own. One that cannot be
   * posted stays queued, no longer nestable.
   */
  #nest(slot: Slot<P>, job: Job<P>): void {
    const message = this.#options.nestedRunMessage;
    if (!message) return;
    const at = this.#queue.indexOf(job);
    this.#queue.splice(at, 1);
    try {
      const wire = slot.sent.wire(job.request);
      slot.worker.postMessage(message(job.runId, wire.request, wire.sources, job.ports));
    } catch {
      slot.sent.forget();
      job.nestable = false;
      this.#queue.splice(at, 0, job);
      return;
    }
    slot.nested = job;
    slot.nestedAt = performance.now();
    slot.worker.hold?.ring();
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
    const { longRunMs } = this.#options.scheduler;
    if (longRunMs !== undefined) {
      slot.longTimer = setTimeout(() => {
        slot.long = true;
        this.#look();
      }, longRunMs);
    }
  }

  /**
   * Deadline + grace has passed since dispatch. Time the worker held the run is added back (its
   * clock excluded it), at most the hold budget + grace in all; then the worker goes.
   */
  #watchdog(slot: Slot<P>, job: Job<P>, limit: number): void {
    if (slot.job !== job || slot.retired) return;
    // A nested run that made a host call runs to its end inside the job's poll, on its own clock:
    // the job waits meanwhile (its held time reaches the buffer once the nested run is over).
    const nested = slot.nested;
    if (nested?.committed) {
      const due = slot.nestedAt + Math.min(nested.request.timeoutMs, LIMITS.guestTimeoutMs) + this.#options.graceMs - performance.now();
      if (due > 0) {
        slot.watchdog = setTimeout(() => this.#watchdog(slot, job, limit), due);
        return;
      }
    }
    // Held time counts at most the hold budget, and nested runs' time at most one more time limit.
    const held = Math.min(slot.worker.hold?.heldMs() ?? 0, HOLD_BUDGET_MS + LIMITS.guestTimeoutMs + this.#options.graceMs);
    if (held > slot.extendedMs) {
      const more = held - slot.extendedMs;
      slot.extendedMs = held;
      slot.watchdog = setTimeout(() => this.#watchdog(slot, job, limit), more);
      return;
    }
    this.#fail(slot, 'timeout', timeoutMessage(job.request.timeoutMs));
  }

  /** Decides again in `ms`, unless it will sooner. */
  #lookAgainIn(ms: number): void {
    const at = performance.now() + ms;
    if (this.#again && this.#againAt <= at) return;
    clearTimeout(this.#again);
    this.#againAt = at;
    this.#again = setTimeout(() => {
      this.#again = undefined;
      this.#againAt = Number.POSITIVE_INFINITY;
      this.#look();
    }, ms);
  }

  /** In `ms` the idle worker is offered to the scheduler for retirement (a run it starts meanwhile clears the timer). */
  #offerRetireIn(slot: Slot<P>, ms: number): void {
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      slot.idleDue = true;
      this.#look();
    }, ms);
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
    this.#look();
  }

  #retire(slot: Slot<P>): void {
    if (slot.retired) return;
    slot.retired = true;
    // A run sent nested is queued again first: nothing of it left the worker (or it ran whole, and its answer is lost with it).
    const nested = slot.nested;
    slot.nested = undefined;
    if (nested?.committed && !nested.cancelled)
      nested.resolve(this.#failure(nested, 'sandbox-crashed', this.#options.wording.crashed('the sandbox worker it ran in was stopped')));
    else if (nested && !nested.cancelled && !this.#closed) this.#queue.unshift(nested);
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

/** What the scheduler reads of a slot: its run's counters come from the worker's hold switch, read once per decision. */
function slotView<P>(slot: Slot<P>): SlotView {
  const { job, worker } = slot;
  const hold = worker.hold;
  return {
    ready: slot.ready,
    canHold: hold !== undefined,
    running: job !== undefined,
    long: slot.long,
    dispatchedAt: job ? slot.dispatchedAt : 0,
    polls: job && hold ? hold.polls() : 0,
    heldMs: job && hold ? hold.heldMs() : 0,
    sincePollMs: job && hold ? hold.sincePollMs() : Number.POSITIVE_INFINITY,
    calls: job?.calls ?? 0,
    nested: slot.nested !== undefined,
    refusedNest: job !== undefined && slot.noNestFor === job.runId,
    nestAfterPolls: slot.nestAfterPolls,
    idleTimer: slot.idleTimer !== undefined,
    idleDue: slot.idleDue,
  };
}
