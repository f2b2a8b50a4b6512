// A host answer that the engine's memory cannot hold (its staging allocation fails near the
// guest limit: supply/engine.ts guardHostAllocations) reaches the guest as a memory-limit failure
// it can catch, and the engine stays healthy for the next run.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { newBoundedQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const request: KernelRunRequest = {
  code: [
    'const keep = [];',
    'try { for (;;) keep.push(new Uint8Array(1 << 20)); } catch {}',
    'keep.length -= 2;',
    'try { return ["answered", (await getSecret("K")).length]; } catch (e) { return [e.code, e.message.includes("does not fit in the sandbox\'s memory")]; }',
  ].join('\n'),
  entries: {},
  modules: {},
  inputs: {},
  grants: { ...NO_GRANTS, secrets: ['K'] },
  timeoutMs: 20_000,
};

describe('a host answer the engine cannot hold', () => {
  it('is a memory-limit failure the guest catches, and the next run on the engine is ordinary', async () => {
    const { engine } = await newBoundedQuickJsNg();
    const big = 'x'.repeat(6 << 20);
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: true as const, value: big }) };
    const full = await runKernel(request, powers);
    expect(full.result).toMatchObject({ ok: true, value: ['memory-limit', true] });
    expect(full.healthy).toBe(true);
    const after = await runKernel({ ...request, code: 'return (await getSecret("K")).length;' }, powers);
    expect(after.result).toMatchObject({ ok: true, value: 6 << 20 });
  }, 60_000);
});
