// The fair scheduler's rules as a table: each row is a snapshot and a time, and the parts of the
// decision that rule decides. The core that applies decisions (timers, real workers) is tested in
// kernel-host-core.elastic.test.ts and through the Node pool.

import { describe, expect, it } from 'vitest';
import { decideFair, type FairSettings } from './fair-scheduler.ts';
import { HOLD_BUDGET_MS } from './hold-budget.ts';
import { schedulerSnapshot, slotView } from '../../testing/scheduler-views.ts';
import { fifoScheduler, type Decision, type QueuedRun, type SchedulerSnapshot, type SlotView } from './scheduler.ts';

const NOW = 1000;

const free = (view: Partial<SlotView> = {}): SlotView => slotView({ canHold: true, ...view });
const starting = (): SlotView => free({ ready: false });
const running = (view: Partial<SlotView> = {}): SlotView => free({ running: true, dispatchedAt: 0, sincePollMs: 0, ...view });
/** A long run polling guest code right now: holdable, and a run may be nested in it. */
const spinning = (view: Partial<SlotView> = {}): SlotView => running({ long: true, polls: 100, ...view });
const nestable = (started = NOW): QueuedRun => ({ nestable: true, started });
const own = (started = NOW): QueuedRun => ({ nestable: false, started });

const snapshot = (view: Partial<SchedulerSnapshot>): SchedulerSnapshot => schedulerSnapshot({ nesting: true, reportsPressure: true, ...view });

interface Row {
  readonly rule: string;
  readonly snapshot: SchedulerSnapshot;
  readonly settings?: FairSettings;
  readonly now?: number;
  readonly expected: Partial<Decision>;
}

const rows: Row[] = [
  // The fresh-run gate: at most `size` runs not yet known to be long start on workers of their own.
  {
    rule: 'a nestable run waits while `size` runs started under 10 ms ago do not poll yet',
    snapshot: snapshot({ slots: [running({ dispatchedAt: 995 }), free()], queue: [nestable(990)] }),
    expected: { starts: [], nests: [], spawn: 0, shortSeenAt: NOW, pressure: true, lookAgainInMs: 5 },
  },
  {
    rule: 'the gate opens once the fresh run has run 10 ms',
    snapshot: snapshot({ slots: [running({ dispatchedAt: 990 }), free()], queue: [nestable(990)] }),
    expected: { starts: [{ slot: 1, run: 0 }] },
  },
  {
    rule: 'the gate opens once the fresh run polls enough to be held',
    snapshot: snapshot({ slots: [running({ dispatchedAt: 995, polls: 10 }), free()], queue: [nestable(990)] }),
    expected: { starts: [{ slot: 1, run: 0 }] },
  },
  {
    rule: 'a run that cannot run nested takes any free worker, past the gate',
    snapshot: snapshot({ slots: [running({ dispatchedAt: 995 }), free()], queue: [nestable(990), own(991)] }),
    expected: { starts: [{ slot: 1, run: 1 }] },
  },
  {
    rule: 'without nesting there is no gate: queued runs take free ready workers in order',
    snapshot: snapshot({ nesting: false, slots: [running({ dispatchedAt: 995 }), starting(), free(), free()], queue: [own(), own()] }),
    expected: {
      starts: [
        { slot: 2, run: 0 },
        { slot: 3, run: 1 },
      ],
    },
  },

  // Nesting: only into a run that polls, polled within 2 ms, has hold budget, and has no host call out.
  {
    rule: 'a nestable run goes to a worker whose run polls guest code',
    snapshot: snapshot({ slots: [spinning()], queue: [own(), nestable()] }),
    expected: { starts: [], nests: [{ slot: 0, run: 1 }] },
  },
  {
    rule: 'one nested run per worker, in order',
    snapshot: snapshot({ slots: [spinning(), spinning()], queue: [nestable(), nestable(), nestable()] }),
    expected: {
      nests: [
        { slot: 0, run: 0 },
        { slot: 1, run: 1 },
      ],
    },
  },
  ...(
    [
      ['has not polled enough to be holdable', { polls: 9 }],
      ['last polled over 2 ms ago (inside one native call)', { sincePollMs: 3 }],
      ['has spent half its hold budget', { heldMs: HOLD_BUDGET_MS / 2 }],
      ['has a host call out', { calls: 1 }],
      ['already has a nested run', { nested: true }],
      ['could not take a nested run during this run', { refusedNest: true }],
      ['has not polled since a nested run reached it outside a poll', { nestAfterPolls: 100 }],
      ['cannot hold', { canHold: false }],
    ] as const
  ).map(([why, view]): Row => ({
    rule: `nothing is nested in a run that ${why}`,
    snapshot: snapshot({ slots: [spinning(view)], queue: [nestable()] }),
    expected: { nests: [] },
  })),
  {
    rule: 'nothing is nested where the host cannot nest',
    snapshot: snapshot({ nesting: false, slots: [spinning()], queue: [nestable()] }),
    expected: { nests: [] },
  },

  // Holds: holdable runs share what of `size` cores short runs and starting workers leave, least-run first.
  {
    rule: 'once quiet, the holdable run that has run least goes on and the others are held; looked at again in 100 ms',
    snapshot: snapshot({ nesting: false, slots: [spinning({ dispatchedAt: 0 }), spinning({ dispatchedAt: 100 })] }),
    settings: { maxWorkers: 2 },
    expected: {
      spawn: 0,
      holds: [
        { slot: 1, held: false },
        { slot: 0, held: true },
      ],
      pressure: false,
      lookAgainInMs: 100,
    },
  },
  {
    rule: 'held time does not count as time run',
    snapshot: snapshot({ nesting: false, slots: [spinning({ dispatchedAt: 0, heldMs: 200 }), spinning({ dispatchedAt: 100 })] }),
    settings: { maxWorkers: 2 },
    expected: {
      holds: [
        { slot: 0, held: false },
        { slot: 1, held: true },
      ],
    },
  },
  {
    rule: 'a run not yet long that polls a lot is ranked like a long one',
    snapshot: snapshot({ nesting: false, slots: [running({ dispatchedAt: 900, polls: 50 }), spinning()] }),
    settings: { maxWorkers: 2 },
    expected: {
      holds: [
        { slot: 0, held: false },
        { slot: 1, held: true },
      ],
    },
  },
  {
    rule: 'a worker starting takes a core: every holdable run is held meanwhile',
    snapshot: snapshot({ nesting: false, slots: [spinning({ dispatchedAt: 0 }), spinning({ dispatchedAt: 100 })] }),
    settings: { maxWorkers: 4 },
    expected: {
      spawn: 1,
      holds: [
        { slot: 1, held: true },
        { slot: 0, held: true },
      ],
    },
  },
  {
    rule: 'within 20 ms of short work every holdable run is held, and looked at again when the quiet window ends',
    snapshot: snapshot({ nesting: false, shortSeenAt: 990, slots: [spinning({ dispatchedAt: 0 }), spinning({ dispatchedAt: 100 })] }),
    settings: { maxWorkers: 2 },
    expected: {
      holds: [
        { slot: 1, held: true },
        { slot: 0, held: true },
      ],
      pressure: true,
      shortSeenAt: 990,
      lookAgainInMs: 10,
    },
  },
  {
    rule: 'a short run under way is short work: the quiet window starts again now',
    snapshot: snapshot({ nesting: false, slots: [spinning(), running({ dispatchedAt: 990 })] }),
    settings: { maxWorkers: 3 },
    expected: { holds: [{ slot: 0, held: true }], pressure: true, shortSeenAt: NOW, lookAgainInMs: 20 },
  },
  {
    rule: 'a long run that makes no polls uses a core (it is ranked, never held): having run less, it keeps the one core',
    snapshot: snapshot({ nesting: false, slots: [spinning({ dispatchedAt: 0 }), running({ long: true, dispatchedAt: 100 })] }),
    settings: { maxWorkers: 2 },
    expected: {
      holds: [
        { slot: 1, held: false },
        { slot: 0, held: true },
      ],
      lookAgainInMs: 100,
    },
  },
  {
    rule: 'a long run waiting on a host call leaves its core to the holdable one',
    snapshot: snapshot({ nesting: false, slots: [spinning({ dispatchedAt: 0 }), running({ long: true, dispatchedAt: 100, calls: 1 })] }),
    settings: { maxWorkers: 2 },
    expected: { holds: [{ slot: 0, held: false }], lookAgainInMs: Number.POSITIVE_INFINITY },
  },
  {
    rule: 'a long run that may yet poll is looked at again in 100 ms while short work takes the cores',
    snapshot: snapshot({ nesting: false, size: 2, slots: [running({ long: true, calls: 1 }), running({ dispatchedAt: 990 })] }),
    expected: { holds: [], lookAgainInMs: 100 },
  },
  {
    rule: 'the pressure word is looked at again when the quiet window ends, with no run to let go',
    snapshot: snapshot({ nesting: false, shortSeenAt: 990, slots: [free()] }),
    expected: { pressure: true, lookAgainInMs: 10 },
  },
  {
    rule: 'a host that does not listen for pressure is not looked at again for it',
    snapshot: snapshot({ nesting: false, reportsPressure: false, shortSeenAt: 990, slots: [free()] }),
    expected: { pressure: true, lookAgainInMs: Number.POSITIVE_INFINITY },
  },
  {
    rule: 'pressure goes off once short work has been quiet 20 ms',
    snapshot: snapshot({ nesting: false, shortSeenAt: 980, pressure: true, slots: [free()] }),
    expected: { pressure: false, shortSeenAt: 980, lookAgainInMs: Number.POSITIVE_INFINITY },
  },

  // Extra workers where runs can run nested: only for runs that cannot, after 500 ms or once quiet.
  {
    rule: 'a run that cannot run nested waits while short work goes on, looked at again when it is due',
    snapshot: snapshot({ slots: [spinning({ nested: true })], queue: [own(600)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 0, shortSeenAt: NOW, lookAgainInMs: 20 },
  },
  {
    rule: 'the look again for a waiting run stands alone where no other rule asks for one',
    snapshot: snapshot({ reportsPressure: false, slots: [running({ dispatchedAt: 990 })], queue: [own(600)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 0, holds: [], lookAgainInMs: 20 },
  },
  {
    rule: 'a run that cannot run nested gets a worker once it has waited 500 ms',
    snapshot: snapshot({ slots: [spinning({ nested: true })], queue: [own(500)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 1 },
  },
  {
    rule: 'a run that cannot run nested gets a worker at once when short work is quiet',
    snapshot: snapshot({ slots: [spinning()], queue: [own(990)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 1 },
  },
  {
    rule: 'no more workers start than `size` plus the long runs',
    snapshot: snapshot({ slots: [spinning()], queue: [own(0), own(0), own(0)] }),
    settings: { maxWorkers: 8 },
    expected: { spawn: 1 },
  },
  {
    rule: 'a nestable run stranded 50 ms with nowhere to nest gets a worker of its own',
    snapshot: snapshot({ slots: [running({ long: true, calls: 1 })], queue: [nestable(950)] }),
    settings: { maxWorkers: 3 },
    expected: { nests: [], spawn: 1 },
  },
  {
    rule: 'a nestable run not yet stranded waits, looked at again within 5 ms for a worker to nest in',
    snapshot: snapshot({ slots: [running({ long: true, calls: 1 })], queue: [nestable(980)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 0, lookAgainInMs: 5 },
  },
  {
    rule: 'a nestable run about to be stranded is looked at again when it is, sooner than the nest recheck',
    snapshot: snapshot({ slots: [running({ long: true, calls: 1 })], queue: [nestable(952)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 0, lookAgainInMs: 2 },
  },
  {
    rule: 'a nestable run is not stranded while a worker runs a nested run (it takes the next)',
    snapshot: snapshot({ slots: [spinning({ nested: true })], queue: [nestable(900)] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 0, nests: [] },
  },

  // Workers kept: `size` free of long runs, up to `maxWorkers`; surplus idle ones retire.
  {
    rule: 'without nesting an extra worker starts for each long run, up to maxWorkers',
    snapshot: snapshot({ nesting: false, slots: [running({ long: true, canHold: false }), running({ long: true, canHold: false })] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 1 },
  },
  {
    rule: 'never past maxWorkers',
    snapshot: snapshot({ nesting: false, slots: [running({ long: true, canHold: false }), running({ long: true, canHold: false })] }),
    settings: { maxWorkers: 2 },
    expected: { spawn: 0 },
  },
  {
    rule: 'no worker starts while workers fail to start',
    snapshot: snapshot({ nesting: false, startsBlocked: true, slots: [running({ long: true, canHold: false })] }),
    settings: { maxWorkers: 3 },
    expected: { spawn: 0 },
  },
  {
    rule: 'surplus idle workers get a retire timer, counting those that have one',
    snapshot: snapshot({ nesting: false, slots: [free(), free(), free({ idleTimer: true }), free()] }),
    settings: { maxWorkers: 4, idleRetireMs: 1000 },
    expected: {
      retireIdle: [
        { slot: 0, afterMs: 1000 },
        { slot: 1, afterMs: 1000 },
      ],
    },
  },
  {
    rule: 'an idle worker whose timer fired retires while it is surplus',
    snapshot: snapshot({ nesting: false, slots: [free({ idleDue: true }), free()] }),
    settings: { maxWorkers: 2 },
    expected: { retire: [0], retireIdle: [], spawn: 0 },
  },
  {
    rule: 'a short run does not make an idle worker whose timer fired needed',
    snapshot: snapshot({ nesting: false, slots: [free({ idleDue: true }), running({ canHold: false, dispatchedAt: 990 })] }),
    settings: { maxWorkers: 2 },
    expected: { retire: [0] },
  },
  {
    rule: 'an idle worker whose timer fired stays once a long run makes it needed',
    snapshot: snapshot({ nesting: false, slots: [free({ idleDue: true }), running({ long: true, canHold: false })] }),
    settings: { maxWorkers: 2 },
    expected: { retire: [], retireIdle: [] },
  },
];

describe('fair scheduler', () => {
  it.each(rows)('$rule', ({ snapshot: view, settings, now, expected }) => {
    expect(decideFair(view, now ?? NOW, settings)).toMatchObject(expected);
  });

  it('decides as first-in-first-out where workers cannot hold, runs cannot nest and no extra worker may start', () => {
    const plain = (view: Partial<SlotView>) => free({ canHold: false, ...view });
    const views = [
      snapshot({
        nesting: false,
        reportsPressure: false,
        size: 3,
        slots: [plain({}), starting(), plain({ running: true }), plain({})],
        queue: [own(), own(), own()],
      }),
      snapshot({ nesting: false, reportsPressure: false, size: 2, slots: [plain({ running: true, long: true })], queue: [own()] }),
      snapshot({ nesting: false, reportsPressure: false, size: 2, startsBlocked: true, slots: [plain({})], queue: [] }),
    ];
    // What the host sees; the fair scheduler's memory of short work tells such a host nothing.
    const applied = ({ retire, starts, nests, spawn, holds, retireIdle, lookAgainInMs }: Decision) => ({
      retire,
      starts,
      nests,
      spawn,
      holds,
      retireIdle,
      lookAgainInMs,
    });
    for (const view of views) expect(applied(decideFair(view, NOW))).toEqual(applied(fifoScheduler.decide(view, NOW)));
    expect(applied(fifoScheduler.decide(views[0]!, NOW)).starts).toEqual([
      { slot: 0, run: 0 },
      { slot: 3, run: 1 },
    ]);
  });
});
