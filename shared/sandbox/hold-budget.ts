// The most a sandbox run is held back in all while shorter runs use the cores (issue 17): the
// worker that holds it (electron/runtime/sandbox/run-hold.ts) stops holding it there, and the
// host's watchdog (kernel-host-core.ts) adds at most this much back. A run therefore answers
// within its time limit + this + grace however much short work keeps arriving. Its own file so a
// worker takes the number without the host core.

import { LIMITS } from '../protocol/limits.ts';

export const HOLD_BUDGET_MS = LIMITS.guestTimeoutMs;
