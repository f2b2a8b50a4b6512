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
  /** An extra worker idle this long retires (default 30 s). */
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
const IDLE_RETIRE_MS = 30_000;
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
  let slots: Slot[] = snapshot.slots.map((slot, index) => ({ ...slot, index }));
  const queue: Queued[] = snapshot.queue.map((run, index) => ({ ...run, index }));
  const retire = retireDue(slots, snapshot.size, rules);
  if (retire.length > 0) slots = slots.filter((slot) => !retire.includes(slot.index));
  const starts = dispatch(slots, queue, snapshot, now, rules);
  const nests = snapshot.nesting && queue.length > 0 ? nest(slots, queue, rules) : [];
  return { retire, starts, nests, ...balance(slots, queue, snapshot, now, rules) };
}

/** Idle workers whose retire timer fired, while workers beyond what `balance` keeps are live. */
function retireDue(slots: readonly Slot[], size: number, rules: Rules): number[] {
  const retire: number[] = [];
  const keep = Math.min(rules.maxWorkers, size + slots.filter((slot) => slot.running && slot.long).length);
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
  let fresh = snapshot.nesting
    ? slots.filter((slot) => slot.running && slot.dispatchedAt > now - FRESH_MS && slot.polls < rules.holdAfterPolls).length
    : Number.NEGATIVE_INFINITY;
  for (const slot of slots) {
    if (queue.length === 0) break;
    if (!slot.ready || slot.running) continue;
    const at = fresh < snapshot.size ? 0 : queue.findIndex((queued) => !queued.nestable);
    if (at < 0) break;
    const [run] = queue.splice(at, 1);
    fresh++;
    starts.push({ slot: slot.index, run: run!.index });
    Object.assign(slot, {
      running: true,
      long: false,
      dispatchedAt: now,
      polls: 0,
      heldMs: 0,
      calls: 0,
      refusedNest: false,
      nestAfterPolls: -1,
      idleTimer: false,
    });
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
    const at = queue.findIndex((queued) => queued.nestable);
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
  const ranked: { slot: Slot; holdable: boolean }[] = [];
  for (const slot of slots) {
    if (slot.ready && !slot.running) idle++;
    // A nested run uses its worker's core (its long run waits meanwhile).
    if (slot.nested) short++;
    if (!slot.ready) starting++;
    else if (slot.running && !slot.long) {
      // Not long yet, but running guest code poll after poll: it may be held like a long one.
      if (slot.canHold && slot.polls >= rules.holdAfterPolls) ranked.push({ slot, holdable: true });
      else short++;
    } else if (slot.running) {
      long++;
      if (!slot.canHold) continue;
      const holdable = slot.polls >= rules.holdAfterPolls;
      if (!holdable) undecided++;
      if (holdable || slot.calls === 0) ranked.push({ slot, holdable });
    }
  }
  let lookAgainInMs = Number.POSITIVE_INFINITY;
  const lookAgainIn = (ms: number) => (lookAgainInMs = Math.min(lookAgainInMs, ms));
  // Short work: short and nested runs, starting workers, and queued runs that can run at once or
  // nested. Not queued runs that wait for a worker to come free: holding long runs back only keeps
  // their workers longer.
  const shortSeenAt = short > 0 || starting > 0 || queue.some((run) => run.nestable || idle > 0) ? now : snapshot.shortSeenAt;
  const quietIn = shortSeenAt + QUIET_MS - now;
  const pressure = quietIn > 0;
  // Workers kept: `size` free of long runs, up to the cap.
  const keep = Math.min(rules.maxWorkers, size + long);
  const want = snapshot.nesting ? wanted(slots, queue, { live, starting, idle, keep, quietIn, now }, rules, lookAgainIn) : keep;
  // Not while workers fail to start: replacements already retry, and a broken install must not multiply.
  const spawn = snapshot.startsBlocked ? 0 : Math.max(0, want - live);
  live += spawn;
  starting += spawn;
  // Once short work has been quiet a while, the cores short runs and starting workers leave go to
  // the long runs that have run least; the holdable ones past them are held (the others cannot
  // be, and run on regardless).
  const free = quietIn > 0 ? 0 : Math.max(0, size - short - starting);
  const ran = (slot: Slot) => now - slot.dispatchedAt - slot.heldMs;
  ranked.sort((a, b) => ran(a.slot) - ran(b.slot));
  const holds = ranked.map(({ slot, holdable }, i) => ({ slot: slot.index, held: holdable && i >= free }));
  // Queued runs may find a worker to nest in once a run there polls.
  if (snapshot.nesting && queue.some((run) => run.nestable)) lookAgainIn(NEST_RECHECK_MS);
  if (ranked.length > free || (undecided > 0 && free < size)) lookAgainIn(quietIn > 0 && ranked.length > 0 ? quietIn : ROTATE_MS);
  // The pressure word goes off once short work is quiet, even with no long run to let go.
  else if (pressure && snapshot.reportsPressure) lookAgainIn(quietIn);
  let surplus = live - keep - slots.filter((slot) => slot.idleTimer).length;
  const retireIdle: { slot: number; afterMs: number }[] = [];
  for (const slot of slots) {
    if (surplus <= 0) break;
    if (slot.running || !slot.ready || slot.idleTimer) continue;
    surplus--;
    retireIdle.push({ slot: slot.index, afterMs: rules.idleRetireMs });
  }
  return { spawn, holds, retireIdle, shortSeenAt, pressure, lookAgainInMs };
}

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
 * queued runs that cannot run nested (they need a host call or WASM, or gave a nested try back),
 * beyond the free and starting workers, and only once short work has been quiet for QUIET_MS or
 * the oldest of them has waited SPAWN_AFTER_MS — and for runs that could run nested but have
 * waited STRANDED_AFTER_MS while no worker's run polls.
 */
function wanted(slots: readonly Slot[], queue: readonly Queued[], counts: Counts, rules: Rules, lookAgainIn: (ms: number) => void): number {
  const { live, starting, idle, keep, quietIn, now } = counts;
  let waiting = 0;
  let oldest = now;
  let stranded = 0;
  let strandedDueIn = Number.POSITIVE_INFINITY;
  // A worker running a nested run now will take the next one when it ends.
  const nowhereToNest = !slots.some((slot) => slot.nested || canNestIn(slot, rules));
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
  if (strandedDueIn < Number.POSITIVE_INFINITY) lookAgainIn(strandedDueIn);
  if (waiting === 0 && stranded === 0) return live;
  const dueIn = waiting === 0 ? Number.POSITIVE_INFINITY : Math.min(quietIn, oldest + SPAWN_AFTER_MS - now);
  const due = stranded + (dueIn <= 0 ? waiting : 0);
  if (dueIn > 0 && dueIn < Number.POSITIVE_INFINITY) lookAgainIn(dueIn);
  if (due === 0) return live;
  return Math.max(live, Math.min(keep, live + due - idle - starting));
}
