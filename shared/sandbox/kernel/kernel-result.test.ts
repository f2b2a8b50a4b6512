// A run's result against the real engine: a number or nothing is answered without the guest's
// serializer (job-loop.ts), and must answer exactly as the serializer does — the same values as the
// same numbers inside an array, which always go through it (JSON: NaN and ±Infinity are null, -0 is
// 0, undefined is null). Number.prototype.toJSON is not consulted for a number, by either path.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest, type RunResult } from '../../protocol/run.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

async function run(code: string): Promise<RunResult> {
  const request: KernelRunRequest = { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 5000 };
  const outcome = await runKernel(request, {
    engine: await loadQuickJsNg(),
    ...SYSTEM_CLOCK,
    hostCall: async () => ({ ok: false, code: 'internal', message: 'unused' }),
  });
  return outcome.result;
}

const CASES = ['2', '2.5', '-7e300', '0', '-0', 'NaN', 'Infinity', '-Infinity', 'Number.MAX_SAFE_INTEGER + 2', '2 ** -1074', 'undefined'];

describe('run results', () => {
  it('answers a number or nothing as the serializer answers the same inside an array', async () => {
    const alone = await Promise.all(CASES.map((c) => run(`return ${c};`)));
    const inArray = await run(`return [${CASES.join(', ')}];`);
    expect(inArray.ok).toBe(true);
    const viaSerializer = inArray.ok ? (inArray.value as unknown[]) : [];
    // An array holds undefined as null too (JSON), so each alone must equal its element.
    expect(alone.map((r) => (r.ok ? r.value : r.code))).toEqual(viaSerializer);
    expect(Object.is(alone[4]!.ok && alone[4]!.value, 0)).toBe(true);
  });

  it('ignores a toJSON the guest puts on Number.prototype, by both paths', async () => {
    const poisoned = 'Object.defineProperty(Number.prototype, "toJSON", { value: () => "poisoned" });';
    expect(await run(`${poisoned}\nreturn 3;`)).toMatchObject({ ok: true, value: 3 });
    expect(await run(`${poisoned}\nreturn [3];`)).toMatchObject({ ok: true, value: [3] });
  });
});
