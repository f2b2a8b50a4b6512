// Holding a long run back while shorter ones use the cores (issue 17), both halves. Each sandbox
// worker is started with a small SharedArrayBuffer: the pool (through the kernel host core, which
// applies the fair scheduler's holds) turns the hold on for a worker whose run has gone long while
// short runs are running, and off again; the worker, at each of the kernel's interrupt polls
// (`checkpoint`, about every 10k guest instructions), sleeps on a futex while the hold is on.
//
// Invariants: holding never changes a result — the run's clock leaves held time out (`runClock`),
// so a held run still gets its whole time limit of running — and no run starves: a run is held at
// most HOLD_BUDGET_MS in all, then runs to the end unheld, however much short work keeps arriving.

import { HOLD_AFTER_POLLS, HOLD_BUDGET_MS } from '../../../shared/sandbox/hosting/hold-budget.ts';
import type { RunHoldSwitch } from '../../../shared/sandbox/hosting/kernel-host-contract.ts';
import type { Timer } from '../../../shared/sandbox/kernel/job-loop.ts';

/** Int32 slots of the buffer: 1 while the pool holds the worker's current run … */
const FLAG = 0;
/**
 * … whole milliseconds the current run has been held (written by the worker, zeroed by the pool at
 * dispatch; the pool's watchdog adds it back) …
 */
const HELD = 1;
/** … the interrupt polls it has made: whether it runs guest code, so holding it would tell … */
const POLLS = 2;
/**
 * … and a counter the pool bumps when it wants the worker's attention at its next poll: a run sent
 * to be run nested (shared/sandbox/hosting/kernel-worker-loop.ts), or the hold turned off. The worker sleeps on this slot.
 */
const MAIL = 3;
/**
 * … and when it last polled (wall-clock ms, modulo 2^31; -1 while it sleeps at a poll, held): a
 * run that stopped polling (inside one long native call) would take mail late.
 */
const POLLED_AT = 4;
const SLOTS = 5;
const WRAP = 2 ** 31;
/**
 * The longest one futex sleep lasts; the hold is checked again after each, so a switch turned off,
 * or the run's hold budget spent, lets the worker go within one slice even if a wake-up is missed.
 * `Worker.terminate()` ends a sleeping thread like a running one (tested).
 */
const SLICE_MS = 50;

/** The buffer one worker is started with (in its workerData). */
export function createHoldBuffer(): Int32Array<SharedArrayBuffer> {
  return new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
}

/**
 * The pool-wide word every worker reads at its polls: 1 while short work is under way or waiting
 * (the fair scheduler's `pressure`, fair-scheduler.ts, which the kernel host core applies). A
 * worker whose run has polled `HOLD_AFTER_POLLS` times holds it itself then, at once, without
 * waiting for the pool's thread — which a dozen runs spinning on every core would slow down before
 * it could hold them (measured in bench load).
 */
export function createPressureBuffer(): Int32Array<SharedArrayBuffer> {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

export function isPressureBuffer(view: Int32Array): boolean {
  return view.buffer instanceof SharedArrayBuffer && view.length === 1;
}

/** The pool's side of the pressure word. */
export function pressureSwitch(view: Int32Array): (on: boolean) => void {
  return (on) => Atomics.store(view, 0, on ? 1 : 0);
}

/** Whether `view` is a hold buffer (what a worker checks of its workerData). */
export function isHoldBuffer(view: Int32Array): boolean {
  return view.buffer instanceof SharedArrayBuffer && view.length === SLOTS;
}

function ring(view: Int32Array): void {
  Atomics.add(view, MAIL, 1);
  Atomics.notify(view, MAIL);
}

/**
 * The worker's side of waiting for the pool's ring outside a poll: blocks at most `ms` until the
 * pool rings (or has rung since `take` last ran), then calls `take`, which reads the mail.
 */
export function waitForRing(view: Int32Array, ms: number, take: () => void): void {
  const seen = Atomics.load(view, MAIL);
  take();
  Atomics.wait(view, MAIL, seen, ms);
  take();
}

/** The pool's side of one worker's buffer. */
export function holdSwitch(view: Int32Array): RunHoldSwitch {
  return {
    set(held) {
      const value = held ? 1 : 0;
      if (Atomics.exchange(view, FLAG, value) !== value && !held) ring(view);
    },
    ring: () => ring(view),
    heldMs: () => Atomics.load(view, HELD),
    polls: () => Atomics.load(view, POLLS),
    sincePollMs() {
      const at = Atomics.load(view, POLLED_AT);
      return at < 0 ? 0 : (Date.now() - at + WRAP) % WRAP;
    },
    reset() {
      Atomics.store(view, HELD, 0);
      Atomics.store(view, POLLS, 0);
      if (Atomics.exchange(view, FLAG, 0) !== 0) ring(view);
    },
  };
}

/** The clock, timer and checkpoint one run gets in the worker (KernelPowers' `now`, `timer`, `checkpoint`). */
export interface RunClock {
  readonly now: () => number;
  readonly timer: Timer;
  readonly checkpoint?: () => void;
}

export interface RunClockOptions {
  /** The most this run is held in all (default HOLD_BUDGET_MS). */
  readonly budget?: number;
  /**
   * Called at a poll when the pool has rung (and while held, each time it rings): the worker takes
   * what the pool sent meanwhile, and runs a nested run there. Its time counts as held time, since
   * this run was not running.
   */
  readonly onMail?: () => void;
  /** The pool's pressure word (see createPressureBuffer): with it, the run holds itself once it has polled enough while short work waits. */
  readonly pressure?: Int32Array;
}

/**
 * One run's clock in a worker started with `view` (none: the plain clock, nothing is held). `now`,
 * and the timer the job loop arms on it, leave held time out, so a held run still gets its whole
 * time limit of running; the run is held at most `budget` in all.
 */
export function runClock(view: Int32Array | undefined, options: RunClockOptions = {}): RunClock {
  const { budget = HOLD_BUDGET_MS, onMail, pressure } = options;
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
  let seen = Atomics.load(view, MAIL);
  const checkpoint = () => {
    Atomics.store(view, POLLS, ++polls);
    Atomics.store(view, POLLED_AT, Date.now() % WRAP);
    // The pool holds such a run while short work is under way (fair-scheduler.ts);
    // holding it here already spares the cores the wait for the pool's thread to say so.
    if (pressure && polls >= HOLD_AFTER_POLLS && held < budget && Atomics.load(pressure, 0) === 1) Atomics.store(view, FLAG, 1);
    if (Atomics.load(view, MAIL) === seen && (Atomics.load(view, FLAG) === 0 || held >= budget)) return;
    const start = performance.now();
    for (;;) {
      const mail = Atomics.load(view, MAIL);
      if (mail !== seen) {
        seen = mail;
        onMail?.();
        continue;
      }
      const heldNow = held + performance.now() - start;
      if (Atomics.load(view, FLAG) === 0 || heldNow >= budget) break;
      Atomics.store(view, POLLED_AT, -1);
      Atomics.wait(view, MAIL, mail, Math.min(SLICE_MS, budget - heldNow));
      Atomics.store(view, HELD, Math.floor(held + performance.now() - start));
    }
    held += performance.now() - start;
    Atomics.store(view, HELD, Math.floor(held));
    Atomics.store(view, POLLED_AT, Date.now() % WRAP);
  };
  return { now, timer, checkpoint };
}
