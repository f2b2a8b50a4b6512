// Plain snapshots for the schedulers' table tests (scheduler.test.ts, fair-scheduler.test.ts): a
// row names only what its rule reads, and everything else is an idle ready worker that cannot
// hold, on a host that neither nests runs nor listens for pressure.

import type { SchedulerSnapshot, SlotView } from '../sandbox/hosting/scheduler.ts';

export function slotView(view: Partial<SlotView> = {}): SlotView {
  return {
    ready: true,
    canHold: false,
    running: false,
    long: false,
    dispatchedAt: 0,
    polls: 0,
    heldMs: 0,
    sincePollMs: Number.POSITIVE_INFINITY,
    calls: 0,
    nested: false,
    refusedNest: false,
    nestAfterPolls: -1,
    idleTimer: false,
    idleDue: false,
    ...view,
  };
}

export function schedulerSnapshot(view: Partial<SchedulerSnapshot> = {}): SchedulerSnapshot {
  return {
    size: 1,
    slots: [],
    queue: [],
    nesting: false,
    reportsPressure: false,
    startsBlocked: false,
    shortSeenAt: Number.NEGATIVE_INFINITY,
    pressure: false,
    ...view,
  };
}
