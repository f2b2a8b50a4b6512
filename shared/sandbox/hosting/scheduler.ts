// Who runs what on a kernel host's workers, apart from the workers themselves: the kernel host
// core (kernel-host-core.ts) supervises workers and timers and, after anything that changes who
// runs what, hands a scheduler a plain snapshot and applies the plain decision it returns. A
// scheduler is pure (no timers, no workers, no clock but `now`), so its rules are tested as tables.
// Two exist: first-in-first-out here (the browser's host: no holds, nested runs or extra workers)
// and the fair one for hostile load (fair-scheduler.ts, the app's Node pool).

/** One worker as the scheduler sees it (index in `SchedulerSnapshot.slots` names it in a decision). */
export interface SlotView {
  /** The worker has said it is ready; one that is not is starting. */
  readonly ready: boolean;
  /** The worker can hold its run and take nested runs (`KernelWorker.hold`). */
  readonly canHold: boolean;
  /** It has a run of its own. The fields below up to `nestAfterPolls` describe that run (0, false or Infinity when it has none). */
  readonly running: boolean;
  /** The run has run for the scheduler's `longRunMs` (the core marks it when that time is up). */
  readonly long: boolean;
  /** When the run was posted to the worker (the core's clock, like `now`). */
  readonly dispatchedAt: number;
  /** Interrupt polls the run has made (0 for a worker that cannot hold). */
  readonly polls: number;
  /** Milliseconds the run has been held so far. */
  readonly heldMs: number;
  /** Milliseconds since the run last polled. */
  readonly sincePollMs: number;
  /** Host calls of the run not yet answered: while any is out, it waits rather than computes. */
  readonly calls: number;
  /** A run was sent to this worker to run nested and has not been answered or given back. */
  readonly nested: boolean;
  /** The worker could not take a nested run during this run (no sandbox ready): none is sent again meanwhile. */
  readonly refusedNest: boolean;
  /** The run's poll count when a nested run reached it outside a poll: none is sent until it has polled since (-1: none did). */
  readonly nestAfterPolls: number;
  /** A retire timer is set for this idle worker. */
  readonly idleTimer: boolean;
  /** Its retire timer has just fired: retire it if it is still idle and surplus. */
  readonly idleDue: boolean;
}

/** A queued run (index in `SchedulerSnapshot.queue` names it in a decision). */
export interface QueuedRun {
  /** It may be sent to run nested in a worker busy with a long run. */
  readonly nestable: boolean;
  /** When it was queued first (a run given back keeps its time). */
  readonly started: number;
}

export interface SchedulerSnapshot {
  /** Workers kept, and started at once. */
  readonly size: number;
  /** In the core's order (the order workers started). */
  readonly slots: readonly SlotView[];
  /** Oldest first. */
  readonly queue: readonly QueuedRun[];
  /** The host can send a run nested (it gave `nestedRunMessage`). */
  readonly nesting: boolean;
  /** The host listens for `pressure`. */
  readonly reportsPressure: boolean;
  /** No worker may start now: workers failed to start in a row (replacements already retry), or none can. */
  readonly startsBlocked: boolean;
  /** The scheduler's own memory, as its last decision left it. */
  readonly shortSeenAt: number;
  readonly pressure: boolean;
}

/** A queued run (`run`, index in the queue) sent to a worker (`slot`, index in the slots). */
export interface Placement {
  readonly slot: number;
  readonly run: number;
}

/** What the core does, in this order: retire, start, nest, tell pressure, spawn, hold, look again, arm retire timers. */
export interface Decision {
  /** Idle workers whose retire timer fired and that are still surplus. */
  readonly retire: readonly number[];
  /** Queued runs posted to free ready workers as their own run, in order. */
  readonly starts: readonly Placement[];
  /** Queued runs posted to busy workers to run nested, in order (the worker is rung). */
  readonly nests: readonly Placement[];
  /** Workers to start. */
  readonly spawn: number;
  /** Hold switches to set, in order. */
  readonly holds: readonly { readonly slot: number; readonly held: boolean }[];
  /** Idle workers to arm a retire timer for. */
  readonly retireIdle: readonly { readonly slot: number; readonly afterMs: number }[];
  /** Kept for the next snapshot; `pressure` is told to the host when it changes. */
  readonly shortSeenAt: number;
  readonly pressure: boolean;
  /** When to decide again with nothing else happening (Infinity: no need). */
  readonly lookAgainInMs: number;
}

export interface Scheduler {
  /** A run that has run this long is long (the core marks it and decides again); none: runs are never marked. */
  readonly longRunMs?: number;
  decide(snapshot: SchedulerSnapshot, now: number): Decision;
}

/**
 * Queued runs take free ready workers in order, and `size` workers are kept (a worker that failed
 * to start is replaced once one starts). Nothing is held, nested or started beyond `size`.
 */
export const fifoScheduler: Scheduler = {
  decide(snapshot) {
    const starts: Placement[] = [];
    let next = 0;
    snapshot.slots.forEach((slot, index) => {
      if (next < snapshot.queue.length && slot.ready && !slot.running) starts.push({ slot: index, run: next++ });
    });
    return {
      retire: [],
      starts,
      nests: [],
      spawn: snapshot.startsBlocked ? 0 : Math.max(0, snapshot.size - snapshot.slots.length),
      holds: [],
      retireIdle: [],
      shortSeenAt: snapshot.shortSeenAt,
      pressure: snapshot.pressure,
      lookAgainInMs: Number.POSITIVE_INFINITY,
    };
  },
};
