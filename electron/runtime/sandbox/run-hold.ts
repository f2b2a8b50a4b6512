// Holding a long run back while shorter ones use the cores (issue 17), both halves. Each sandbox
// worker is started with a small SharedArrayBuffer: the pool (through the kernel host core) turns
// the hold on for a worker whose run has gone long while short runs are running, and off again;
// the worker, at each of the kernel's interrupt polls (`checkpoint`, about every 10k guest
// instructions), sleeps on a futex while the hold is on. It sleeps in bounded slices, so a switch
// turned off, or the run's hold budget spent, lets it go within one slice even if a wake-up is
// missed; `Worker.terminate()` ends a sleeping thread like a running one (tested).
//
// Holding must never change a result: the run's clock (`now`, and the timer the job loop arms on
// it) leaves held time out, so a held run still gets its whole time limit of running. A run is
// held at most HOLD_BUDGET_MS in all (then it runs to the end unheld), so no run starves however
// much short work keeps arriving. The worker writes the time held so far into the buffer; the
// pool's watchdog adds it back.

import { HOLD_BUDGET_MS } from '../../../shared/sandbox/hold-budget.ts';
import type { RunHoldSwitch } from '../../../shared/sandbox/kernel-host-contract.ts';
import type { Timer } from '../../../shared/sandbox/job-loop.ts';

/** Int32 slots of the buffer: 1 while the pool holds the worker's current run … */
const FLAG = 0;
/** … whole milliseconds the current run has been held (written by the worker, zeroed by the pool at dispatch) … */
const HELD = 1;
/** … and the interrupt polls it has made: whether it runs guest code, so holding it would tell. */
const POLLS = 2;
/** The longest one futex sleep lasts; the hold is checked again after each. */
const SLICE_MS = 50;

/** The buffer one worker is started with (in its workerData). */
export function createHoldBuffer(): Int32Array<SharedArrayBuffer> {
  return new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
}

/** The pool's side of one worker's buffer. */
export function holdSwitch(view: Int32Array): RunHoldSwitch {
  return {
    set(held) {
      const value = held ? 1 : 0;
      if (Atomics.exchange(view, FLAG, value) !== value && !held) Atomics.notify(view, FLAG);
    },
    heldMs: () => Atomics.load(view, HELD),
    polls: () => Atomics.load(view, POLLS),
    reset() {
      Atomics.store(view, HELD, 0);
      Atomics.store(view, POLLS, 0);
      if (Atomics.exchange(view, FLAG, 0) !== 0) Atomics.notify(view, FLAG);
    },
  };
}

/** The clock, timer and checkpoint one run gets in the worker (KernelPowers' `now`, `timer`, `checkpoint`). */
export interface RunClock {
  readonly now: () => number;
  readonly timer: Timer;
  readonly checkpoint?: () => void;
}

/** One run's clock in a worker started with `view` (none: the plain clock, nothing is held). */
export function runClock(view: Int32Array | undefined, budget: number = HOLD_BUDGET_MS): RunClock {
  let held = 0;
  const now = () => performance.now() - held;
  const timer: Timer = (ms, fire) => {
    // Armed on the run's clock: when it fires on the wall clock, held time since may still be owed.
    const due = now() + ms;
    let id: ReturnType<typeof setTimeout>;
    const check = () => {
      const left = due - now();
      if (left > 0) id = setTimeout(check, left);
      else fire();
    };
    id = setTimeout(check, ms);
    return () => clearTimeout(id);
  };
  if (!view) return { now, timer };
  let polls = 0;
  const checkpoint = () => {
    Atomics.store(view, POLLS, ++polls);
    if (Atomics.load(view, FLAG) === 0 || held >= budget) return;
    while (Atomics.load(view, FLAG) !== 0 && held < budget) {
      const start = performance.now();
      Atomics.wait(view, FLAG, 1, Math.min(SLICE_MS, budget - held));
      held += performance.now() - start;
      Atomics.store(view, HELD, Math.floor(held));
    }
  };
  return { now, timer, checkpoint };
}
