// A guest Error may carry a host code (the bridge rethrows host failures with theirs), and the
// guest can set `code` itself. Only a code of the closed set survives: anything else would make
// the run's result unparseable on the host (an unknown code is a parse failure), so it is a
// plain runtime error instead.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { newBoundedQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';

const request = (code: string): KernelRunRequest => ({ code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 5_000 });

async function run(code: string) {
  const { engine } = await newBoundedQuickJsNg();
  const outcome = await runKernel(request(code), {
    engine,
    now: () => performance.now(),
    timer: (ms, fire) => {
      const id = setTimeout(fire, ms);
      return () => clearTimeout(id);
    },
    hostCall: async () => ({ ok: false as const, code: 'capability-denied' as const, message: 'none' }),
  });
  return outcome.result;
}

describe('codes a guest error carries', () => {
  it('keeps a host code of the closed set', async () => {
    expect(await run('throw Object.assign(new Error("trapped"), { code: "wasm-trap" });')).toMatchObject({
      ok: false,
      code: 'wasm-trap',
      message: 'trapped (line 1, column 24)',
    });
  });

  it('answers runtime-error for a host-looking code outside the closed set', async () => {
    expect(await run('throw Object.assign(new Error("odd"), { code: "wasm-made-up" });')).toMatchObject({
      ok: false,
      code: 'runtime-error',
      message: 'Error: odd (line 1, column 24)',
    });
  });
});
