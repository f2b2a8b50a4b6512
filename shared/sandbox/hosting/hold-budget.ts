// The most a sandbox run is held back in all while shorter runs use the cores (issue 17): the
// worker that holds it (electron/runtime/sandbox/run-hold.ts) stops holding it there, and the
// host core's watchdog (kernel-host-core.ts) adds at most this much back. A run therefore answers
// within its time limit + this + grace however much short work keeps arriving. Its own file so a
// worker takes the number without the host core.

import { LIMITS } from '../../protocol/limits.ts';

export const HOLD_BUDGET_MS = LIMITS.guestTimeoutMs;

/**
 * A run that has made this many interrupt polls (about 1.5 ms of guest code: a loop polls several
 * times a millisecond, a short run hardly ever) runs guest code, not a quick answer: it may be held
 * while short runs use the cores, held by its own worker as soon as the pool says short work is
 * waiting, and it may have short runs nested in it (fair-scheduler.ts). Low, so a dozen runs
 * spinning at once each take little CPU before they are held (docs/performance.md).
 */
export const HOLD_AFTER_POLLS = 10;
