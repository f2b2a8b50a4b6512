// First-in-first-out, the browser host's scheduler, as a table: queued runs take free ready
// workers in order, `size` workers are kept, and nothing is held, nested or retired.

import { describe, expect, it } from 'vitest';
import { schedulerSnapshot, slotView } from '../../testing/scheduler-views.ts';
import { fifoScheduler, type Decision, type SchedulerSnapshot } from './scheduler.ts';

const slot = slotView;
const snapshot = (view: Partial<SchedulerSnapshot>): SchedulerSnapshot => schedulerSnapshot({ shortSeenAt: 7, ...view });

const queued = (n: number) => Array.from({ length: n }, () => ({ nestable: true, started: 0 }));

const rows: { rule: string; snapshot: SchedulerSnapshot; expected: Partial<Decision> }[] = [
  {
    rule: 'queued runs take the free ready workers in order; starting and busy ones are passed over',
    snapshot: snapshot({ size: 4, slots: [slot(), slot({ ready: false }), slot({ running: true }), slot()], queue: queued(3) }),
    expected: {
      starts: [
        { slot: 0, run: 0 },
        { slot: 3, run: 1 },
      ],
      spawn: 0,
    },
  },
  {
    rule: 'no run, no start',
    snapshot: snapshot({ slots: [slot()] }),
    expected: { starts: [] },
  },
  {
    rule: 'workers below `size` are started again',
    snapshot: snapshot({ size: 2, slots: [slot()] }),
    expected: { spawn: 1 },
  },
  {
    rule: 'but not while workers fail to start',
    snapshot: snapshot({ size: 2, slots: [slot()], startsBlocked: true }),
    expected: { spawn: 0 },
  },
  {
    rule: 'a long run polling guest code is neither held nor nested in, and nothing is looked at again',
    snapshot: snapshot({ nesting: true, slots: [slot({ canHold: true, running: true, long: true, polls: 100, sincePollMs: 0 })], queue: queued(1) }),
    expected: { starts: [], nests: [], holds: [], spawn: 0, lookAgainInMs: Number.POSITIVE_INFINITY },
  },
  {
    rule: 'an idle worker is kept, even when its timer is due',
    snapshot: snapshot({ size: 1, slots: [slot({ idleDue: true }), slot()] }),
    expected: { retire: [], retireIdle: [], spawn: 0 },
  },
  {
    rule: "the fair scheduler's memory passes through untouched",
    snapshot: snapshot({ shortSeenAt: 7, pressure: true }),
    expected: { shortSeenAt: 7, pressure: true },
  },
];

describe('first-in-first-out scheduler', () => {
  it.each(rows)('$rule', ({ snapshot: view, expected }) => {
    expect(fifoScheduler.decide(view, 1000)).toMatchObject(expected);
  });

  it('has no long runs to mark', () => {
    expect(fifoScheduler.longRunMs).toBeUndefined();
  });
});
