// Fairness under hostile load (issue 17), as a pure scheduler (scheduler.ts) for the app's Node
// pool: a run spinning to its deadline must not stall the ordinary runs queued behind it. Three
// means, each measured in bench load (docs/performance.md): short runs run nested at a long run's
// interrupt polls, in the long run's worker (starting a worker costs hundreds of ms of CPU); long
// runs that keep running guest code are held while short work uses the cores, and take turns,
// least-run first, once it has been quiet a moment; and extra workers, up to `maxWorkers`, start
// only for runs that cannot run nested, so `size` workers stay free of long runs. Polls, not time,
// say a run computes: a run slowed by a busy machine makes hardly any, a loop thousands a second.
// The invariant: holding never changes a result, and a run is held at most HOLD_BUDGET_MS in all.

import { HOLD_AFTER_POLLS, HOLD_BUDGET_MS } from './hold-budget.ts';
import type { Decision, Placement, QueuedRun, Scheduler, SchedulerSnapshot, SlotView } from './scheduler.ts';

export interface FairSettings {
  /** Most workers at once, extra ones included (default, and at least, the snapshot's `size`). */
  readonly maxWorkers?: number;
  /** A run that has run this long is long: an extra worker may start in its place (default 30 ms). */
  readonly longRunMs?: number;
  /** A run that has made this many interrupt polls runs guest code: it may be held, or have runs nested in it (default HOLD_AFTER_POLLS). */
  readonly holdAfterPolls?: number;
  /** An extra worker idle this long retires (default IDLE_RETIRE_MS, 5 s). */
  readonly idleRetireMs?: number;
}

const LONG_RUN_MS = 30;
/** How often held runs and running ones are chosen again while some wait. */
const ROTATE_MS = 100;
/**
 * Held runs go on only once no short run has been running or queued for this long: the thread
 * that takes requests and posts runs needs a core too, and between two short runs it is busy with
 * the next request (a long run let go in that gap took its core).
 */
const QUIET_MS = 20;
/** The longest a run that cannot run nested waits, while short work goes on, before a worker starts for it. */
const SPAWN_AFTER_MS = 500;
/** How long a run counts as not yet known to be long (the fresh-run gate). */
const FRESH_MS = 10;
/**
 * An extra worker retires after this long idle (issue 30): a burst's extra workers, their WASM lanes
 * and engine memories went after 30 s, so 3 s after a storm the web host still had 12 more threads
 * and ~300 MB more resident. A start costs 0.55–0.8 s of wall time and 0.85–1.2 s of CPU under tsx
 * (measured from the pool's first run); 5 s keeps the workers for a burst that comes back at once.
 */
const IDLE_RETIRE_MS = 5_000;
/** How soon to look again for a worker to nest a queued run in while none has a long run that polls. */
const NEST_RECHECK_MS = 5;
/** A run polled this recently may have a run nested in it (a loop polls several times a millisecond). */
const NEST_POLLED_WITHIN_MS = 2;
/**
 * A run that could run nested but has waited this long with no worker to nest in (every worker's
 * run awaits a host call or a WASM lane, or computes inside one engine call) gets a worker of its
 * own: waiting for runs that neither poll nor end could cost it their whole time limit (issue 26).
 */
const STRANDED_AFTER_MS = 50;

interface Rules {
  readonly maxWorkers: number;
  readonly holdAfterPolls: number;
  readonly idleRetireMs: number;
}

type Slot = { -readonly [K in keyof SlotView]: SlotView[K] } & { readonly index: number };
type Queued = QueuedRun & { readonly index: number };

export function fairScheduler(settings: FairSettings = {}): Scheduler {
  return { longRunMs: settings.longRunMs ?? LONG_RUN_MS, decide: (snapshot, now) => decideFair(snapshot, now, settings) };
}

/** The fair scheduler's decision: pure, `now` on the same clock as the snapshot's times. */
export function decideFair(snapshot: SchedulerSnapshot, now: number, settings: FairSettings = {}): Decision {
  const rules: Rules = {
    maxWorkers: Math.max(snapshot.size, settings.maxWorkers ?? snapshot.size),
    holdAfterPolls: settings.holdAfterPolls ?? HOLD_AFTER_POLLS,
    idleRetireMs: settings.idleRetireMs ?? IDLE_RETIRE_MS,
  };
  // Working copies, marked as runs are placed. Written out, with no closure made per decision: the
  // core decides after every event, and under tsx (keepNames) each closure and spread costs µs.
  let slots: Slot[] = snapshot.slots.map(workingSlot);
  const queue: Queued[] = [];
  for (let index = 0; index < snapshot.queue.length; index++) {
    const run = snapshot.queue[index]!;
    queue.push({ index, nestable: run.nestable, started: run.started });
  }
  const retire = retireDue(slots, snapshot.size, rules);
  if (retire.length > 0) slots = slots.filter(stays(retire));
  const starts = dispatch(slots, queue, snapshot, now, rules);
  const nests = snapshot.nesting && queue.length > 0 ? nest(slots, queue, rules) : [];
  const { spawn, holds, retireIdle, shortSeenAt, pressure, lookAgainInMs } = balance(slots, queue, snapshot, now, rules);
  return { retire, starts, nests, spawn, holds, retireIdle, shortSeenAt, pressure, lookAgainInMs };
}

const isNestable = (run: QueuedRun): boolean => run.nestable;
const isOwn = (run: QueuedRun): boolean => !run.nestable;
const stays =
  (retire: readonly number[]) =>
  (slot: Slot): boolean =>
    !retire.includes(slot.index);

function workingSlot(view: SlotView, index: number): Slot {
  return {
    index,
    ready: view.ready,
    canHold: view.canHold,
    running: view.running,
    long: view.long,
    dispatchedAt: view.dispatchedAt,
    polls: view.polls,
    heldMs: view.heldMs,
    sincePollMs: view.sincePollMs,
    calls: view.calls,
    nested: view.nested,
    refusedNest: view.refusedNest,
    nestAfterPolls: view.nestAfterPolls,
    idleTimer: view.idleTimer,
    idleDue: view.idleDue,
  };
}

/** Idle workers whose retire timer fired, while workers beyond what `balance` keeps are live. */
function retireDue(slots: readonly Slot[], size: number, rules: Rules): number[] {
  const retire: number[] = [];
  let due = false;
  let long = 0;
  for (const slot of slots) {
    if (slot.idleDue) due = true;
    if (slot.running && slot.long) long++;
  }
  if (!due) return retire;
  const keep = Math.min(rules.maxWorkers, size + long);
  let live = slots.length;
  for (const slot of slots) {
    if (!slot.idleDue || slot.running || live <= keep) continue;
    retire.push(slot.index);
    live--;
  }
  return retire;
}

/**
 * Queued runs onto free ready workers. Where runs can run nested, at most `size` runs not yet
 * known to be long start on workers of their own: a free worker beyond them (one an earlier burst
 * started) would let a run that turns out hostile spin on it alongside the others, while nested in
 * a held long run it gives the core back within its budget. Runs that cannot run nested take any
 * free worker. Marks what it starts in `slots` and takes it from `queue`.
 */
function dispatch(slots: Slot[], queue: Queued[], snapshot: SchedulerSnapshot, now: number, rules: Rules): Placement[] {
  const starts: Placement[] = [];
  // Fresh: started less than FRESH_MS ago and not polling enough to be held. (One that makes no
  // polls past that, inside one native call or waiting on a WASM lane, must not keep others from starting.)
  let fresh = snapshot.nesting ? 0 : Number.NEGATIVE_INFINITY;
  if (snapshot.nesting) for (const slot of slots) if (slot.running && slot.dispatchedAt > now - FRESH_MS && slot.polls < rules.holdAfterPolls) fresh++;
  for (const slot of slots) {
    if (queue.length === 0) break;
    if (!slot.ready || slot.running) continue;
    const at = fresh < snapshot.size ? 0 : queue.findIndex(isOwn);
    if (at < 0) break;
    const [run] = queue.splice(at, 1);
    fresh++;
    starts.push({ slot: slot.index, run: run!.index });
    // As the core starts it: a new run, its hold switch reset, its idle timer cleared.
    slot.running = true;
    slot.long = false;
    slot.dispatchedAt = now;
    slot.polls = 0;
    slot.heldMs = 0;
    slot.calls = 0;
    slot.refusedNest = false;
    slot.nestAfterPolls = -1;
    slot.idleTimer = false;
  }
  return starts;
}

/**
 * Queued runs that may run nested go to workers whose run keeps running guest code: the worker
 * runs one at its next poll, to its end, in a sandbox of its own, the long run waiting meanwhile.
 * A nested run that needs a host call or runs past its budget is given back and queued again.
 */
function nest(slots: Slot[], queue: Queued[], rules: Rules): Placement[] {
  const nests: Placement[] = [];
  for (const slot of slots) {
    if (!canNestIn(slot, rules)) continue;
    const at = queue.findIndex(isNestable);
    if (at < 0) break;
    const [run] = queue.splice(at, 1);
    nests.push({ slot: slot.index, run: run!.index });
    slot.nested = true;
  }
  return nests;
}

/**
 * A run may be nested in the slot's run now: it polls (runs guest code), polled just now (not
 * inside one long native call, where mail would wait), has hold budget to spare for the nested
 * run's time, has no host call out, and has polled since a nested run last reached it outside a poll.
 */
function canNestIn(slot: Slot, rules: Rules): boolean {
  if (!slot.canHold || !slot.running || slot.nested || slot.calls > 0 || slot.refusedNest) return false;
  if (slot.polls < rules.holdAfterPolls || slot.polls <= slot.nestAfterPolls) return false;
  return slot.sincePollMs <= NEST_POLLED_WITHIN_MS && slot.heldMs < HOLD_BUDGET_MS / 2;
}

/**
 * Extra workers and holds, once runs are placed. Keeps `size` workers free of long runs (up to
 * `maxWorkers`) and lets surplus idle workers retire after `idleRetireMs`. Holdable runs (long,
 * running guest code) share what of `size` cores short runs and starting workers leave: the ones
 * that have run least (held time not counted) go on, the others are held, chosen again every
 * ROTATE_MS while some wait — so a dozen runs spinning to their deadlines each still get their
 * whole time limit of running, as they would one after the other, while ordinary runs pass them.
 */
function balance(slots: readonly Slot[], queue: readonly Queued[], snapshot: SchedulerSnapshot, now: number, rules: Rules) {
  const { size } = snapshot;
  let live = slots.length;
  let long = 0;
  let short = 0;
  let starting = 0;
  let undecided = 0;
  let idle = 0;
  // Long runs that use a core: those running guest code (holdable) and those computing where they
  // cannot be held (allocating, in one engine call, a WASM call on a lane); not those waiting on the host.
  const ranked: Ranked[] = [];
  for (const slot of slots) {
    if (slot.ready && !slot.running) idle++;
    // A nested run uses its worker's core (its long run waits meanwhile).
    if (slot.nested) short++;
    if (!slot.ready) starting++;
    else if (slot.running && !slot.long) {
      // Not long yet, but running guest code poll after poll: it may be held like a long one.
      if (slot.canHold && slot.polls >= rules.holdAfterPolls) ranked.push({ slot, holdable: true, ran: now - slot.dispatchedAt - slot.heldMs });
      else short++;
    } else if (slot.running) {
      long++;
      if (!slot.canHold) continue;
      const holdable = slot.polls >= rules.holdAfterPolls;
      if (!holdable) undecided++;
      if (holdable || slot.calls === 0) ranked.push({ slot, holdable, ran: now - slot.dispatchedAt - slot.heldMs });
    }
  }
  // Short work: short and nested runs, starting workers, and queued runs that can run at once or
  // nested. Not queued runs that wait for a worker to come free: holding long runs back only keeps
  // their workers longer.
  const nestableQueued = queue.some(isNestable);
  const shortSeenAt = short > 0 || starting > 0 || nestableQueued || (idle > 0 && queue.length > 0) ? now : snapshot.shortSeenAt;
  const quietIn = shortSeenAt + QUIET_MS - now;
  const pressure = quietIn > 0;
  // Workers kept: `size` free of long runs, up to the cap.
  const keep = Math.min(rules.maxWorkers, size + long);
  const { want, dueIn } = snapshot.nesting
    ? wanted(slots, queue, { live, starting, idle, keep, quietIn, now }, rules)
    : { want: keep, dueIn: Number.POSITIVE_INFINITY };
  let lookAgainInMs = dueIn;
  // Not while workers fail to start: replacements already retry, and a broken install must not multiply.
  const spawn = snapshot.startsBlocked ? 0 : Math.max(0, want - live);
  live += spawn;
  starting += spawn;
  // Once short work has been quiet a while, the cores short runs and starting workers leave go to
  // the long runs that have run least; the holdable ones past them are held (the others cannot
  // be, and run on regardless).
  const free = quietIn > 0 ? 0 : Math.max(0, size - short - starting);
  ranked.sort(leastRunFirst);
  const holds: { slot: number; held: boolean }[] = [];
  for (let i = 0; i < ranked.length; i++) holds.push({ slot: ranked[i]!.slot.index, held: ranked[i]!.holdable && i >= free });
  // Queued runs may find a worker to nest in once a run there polls.
  if (snapshot.nesting && nestableQueued) lookAgainInMs = Math.min(lookAgainInMs, NEST_RECHECK_MS);
  if (ranked.length > free || (undecided > 0 && free < size)) {
    lookAgainInMs = Math.min(lookAgainInMs, quietIn > 0 && ranked.length > 0 ? quietIn : ROTATE_MS);
  }
  // The pressure word goes off once short work is quiet, even with no long run to let go.
  else if (pressure && snapshot.reportsPressure) lookAgainInMs = Math.min(lookAgainInMs, quietIn);
  let surplus = live - keep;
  for (const slot of slots) if (slot.idleTimer) surplus--;
  const retireIdle: { slot: number; afterMs: number }[] = [];
  for (const slot of slots) {
    if (surplus <= 0) break;
    if (slot.running || !slot.ready || slot.idleTimer) continue;
    surplus--;
    retireIdle.push({ slot: slot.index, afterMs: rules.idleRetireMs });
  }
  return { spawn, holds, retireIdle, shortSeenAt, pressure, lookAgainInMs };
}

interface Ranked {
  readonly slot: Slot;
  readonly holdable: boolean;
  /** Time run since dispatch, held time not counted. */
  readonly ran: number;
}

const leastRunFirst = (a: Ranked, b: Ranked): number => a.ran - b.ran;

interface Counts {
  readonly live: number;
  readonly starting: number;
  readonly idle: number;
  readonly keep: number;
  readonly quietIn: number;
  readonly now: number;
}

/**
 * Workers wanted where short runs can run nested: starting one costs hundreds of milliseconds of
 * CPU, which the runs under way would lose, and short runs need none. So workers start only for
 * queued runs that cannot run nested (they gave a nested try back: they compute, or need a host
 * that cannot answer nested runs),
 * beyond the free and starting workers, and only once short work has been quiet for QUIET_MS or
 * the oldest of them has waited SPAWN_AFTER_MS — and for runs that could run nested but have
 * waited STRANDED_AFTER_MS while no worker's run polls.
 */
function wanted(slots: readonly Slot[], queue: readonly Queued[], counts: Counts, rules: Rules): { want: number; dueIn: number } {
  const { live, starting, idle, keep, quietIn, now } = counts;
  let waiting = 0;
  let oldest = now;
  let stranded = 0;
  let strandedDueIn = Number.POSITIVE_INFINITY;
  // A worker running a nested run now will take the next one when it ends.
  let nowhereToNest = true;
  for (const slot of slots) if (slot.nested || canNestIn(slot, rules)) nowhereToNest = false;
  for (const run of queue) {
    if (!run.nestable) {
      waiting++;
      oldest = Math.min(oldest, run.started);
    } else if (nowhereToNest) {
      const dueIn = run.started + STRANDED_AFTER_MS - now;
      if (dueIn <= 0) stranded++;
      else strandedDueIn = Math.min(strandedDueIn, dueIn);
    }
  }
  // When to look again: once a stranded run is due, or the waiting ones' start is.
  if (waiting === 0 && stranded === 0) return { want: live, dueIn: strandedDueIn };
  const spawnIn = waiting === 0 ? Number.POSITIVE_INFINITY : Math.min(quietIn, oldest + SPAWN_AFTER_MS - now);
  const due = stranded + (spawnIn <= 0 ? waiting : 0);
  const dueIn = spawnIn > 0 ? Math.min(strandedDueIn, spawnIn) : strandedDueIn;
  if (due === 0) return { want: live, dueIn };
  return { want: Math.max(live, Math.min(keep, live + due - idle - starting)), dueIn };
}
