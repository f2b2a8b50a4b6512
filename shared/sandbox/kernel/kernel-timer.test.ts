// The kernel's deadline while it waits on host calls comes from the injected timer, not a global:
// a host that fires it early ends the run as a timeout at once, and a run that ends first cancels it.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { newBoundedQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel, timeoutMessage } from './kernel.ts';

const request = (code: string): KernelRunRequest => ({
  code,
  entries: {},
  modules: {},
  inputs: {},
  grants: { ...NO_GRANTS, secrets: ['K'] },
  timeoutMs: 60_000,
});

describe('kernel timer power', () => {
  it('ends a run waiting on an unanswered host call when the injected timer fires', async () => {
    const { engine } = await newBoundedQuickJsNg();
    const armed: number[] = [];
    const outcome = await runKernel(request('return await getSecret("K");'), {
      engine,
      now: () => performance.now(),
      // Fires on the next macrotask, whatever it was asked for: the 60 s deadline is the host's to keep.
      timer: (ms, fire) => {
        armed.push(ms);
        const id = setImmediate(fire);
        return () => clearImmediate(id);
      },
      hostCall: () => new Promise<never>(() => undefined),
    });
    expect(outcome.result).toMatchObject({ ok: false, code: 'timeout', message: timeoutMessage(60_000) });
    expect(outcome.healthy).toBe(true);
    expect(armed).toHaveLength(1);
    expect(armed[0]).toBeGreaterThan(59_000);
    expect(armed[0]).toBeLessThanOrEqual(60_000);
  }, 10_000);

  it('cancels the timer it armed when the host call answers first', async () => {
    const { engine } = await newBoundedQuickJsNg();
    let armed = 0;
    let cancelled = 0;
    const outcome = await runKernel(request('return await getSecret("K");'), {
      engine,
      now: () => performance.now(),
      timer: () => {
        armed++;
        return () => cancelled++;
      },
      hostCall: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true, value: 'k' }), 5)),
    });
    expect(outcome.result).toMatchObject({ ok: true, value: 'k' });
    expect([armed, cancelled]).toEqual([1, 1]);
  });
});
