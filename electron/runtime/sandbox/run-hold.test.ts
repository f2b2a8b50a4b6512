// The worker's half of holding a run, on this thread (Atomics.wait is allowed on Node's main
// thread): the checkpoint sleeps while the switch is on, never past the budget, and reports what
// it held; the run's clock leaves held time out exactly; the run's timer fires on that clock, not
// on the wall clock. The pool's half is tested with real worker threads in
// sandbox-pool.fairness.test.ts.

import { describe, expect, it } from 'vitest';
import { createHoldBuffer, holdSwitch, runClock } from './run-hold.ts';

/**
 * The run clock's count across `work`, with two wall spans: one read outside the clock's two
 * readings and one inside them. A thread preempted between readings widens the outer span and
 * narrows the inner one, so the bounds below hold on a busy machine; they are not timings.
 */
function measured(clock: { now(): number }, work: () => void): { counted: number; outer: number; inner: number } {
  const outerStart = performance.now();
  const before = clock.now();
  const innerStart = performance.now();
  work();
  const innerEnd = performance.now();
  const after = clock.now();
  const outerEnd = performance.now();
  return { counted: after - before, outer: outerEnd - outerStart, inner: innerEnd - innerStart };
}

/** The clock left out `heldMs` (whole ms in the buffer): no more, no less, within a millisecond. */
function expectHeldLeftOut(span: { counted: number; outer: number; inner: number }, heldMs: number): void {
  expect(span.counted).toBeLessThanOrEqual(span.outer - heldMs + 1);
  expect(span.counted).toBeGreaterThanOrEqual(span.inner - heldMs - 1);
}

describe('run hold', () => {
  it('passes straight through a checkpoint while not held, counting the poll for the pool', () => {
    const view = createHoldBuffer();
    const clock = runClock(view, { budget: 1000 });
    clock.checkpoint?.();
    clock.checkpoint?.();
    expect(holdSwitch(view).heldMs()).toBe(0);
    expect(holdSwitch(view).polls()).toBe(2);
    // Nothing held: the run clock is the wall clock.
    const wall = performance.now();
    expect(clock.now()).toBeGreaterThanOrEqual(wall);
  });

  it('holds while the switch is on, at most the budget, and leaves exactly the held time out of the run clock', () => {
    const view = createHoldBuffer();
    const control = holdSwitch(view);
    const clock = runClock(view, { budget: 30 });
    control.set(true);
    const span = measured(clock, () => clock.checkpoint?.());
    expect(control.heldMs()).toBeGreaterThanOrEqual(29);
    // Held time is what the wall clock gained over the run clock (the buffer keeps whole ms).
    expectHeldLeftOut(span, control.heldMs());
    // The budget is spent: the switch is still on, but the run is not held again.
    expectHeldLeftOut(
      measured(clock, () => clock.checkpoint?.()),
      0,
    );
    control.reset();
    expect(control.heldMs()).toBe(0);
  });

  it('fires the run timer on the run clock: time held since it was armed is waited out again', async () => {
    const view = createHoldBuffer();
    const control = holdSwitch(view);
    const clock = runClock(view, { budget: 40 });
    const due = clock.now() + 10;
    const fired = new Promise<number>((resolve) => clock.timer(10, () => resolve(clock.now())));
    control.set(true);
    clock.checkpoint?.();
    control.set(false);
    expect(control.heldMs()).toBeGreaterThanOrEqual(39);
    expect(await fired).toBeGreaterThanOrEqual(due);
  });

  it('takes mail at the next poll once rung, held or not, and leaves its time out of the run clock', () => {
    const view = createHoldBuffer();
    const control = holdSwitch(view);
    const taken: number[] = [];
    const clock = runClock(view, {
      budget: 1000,
      onMail: () => {
        taken.push(performance.now());
        // A nested run's worth of work, done inside the poll.
        const until = performance.now() + 20;
        while (performance.now() < until);
      },
    });
    clock.checkpoint?.();
    expect(taken).toEqual([]);
    // Rung while running: taken at the next poll, which tells the pool it polled just now.
    control.ring();
    const span = measured(clock, () => clock.checkpoint?.());
    expect(taken).toHaveLength(1);
    expect(control.heldMs()).toBeGreaterThanOrEqual(19);
    expectHeldLeftOut(span, control.heldMs());
    expect(control.sincePollMs()).toBeLessThan(1000);
    clock.checkpoint?.();
    expect(taken).toHaveLength(1);
    // Rung while held: taken, then the hold goes on until the switch is off (here, the budget).
    control.set(true);
    control.ring();
    const heldBefore = control.heldMs();
    const short = runClock(view, { budget: heldBefore + 60, onMail: () => taken.push(performance.now()) });
    control.ring();
    short.checkpoint?.();
    expect(taken).toHaveLength(2);
    control.reset();
  });

  it('has no checkpoint without a buffer', () => {
    expect(runClock(undefined).checkpoint).toBeUndefined();
  });
});
