// Isolation (issue 31) through the in-thread kernel: the fixture file fixtures/kernel/isolation.json,
// which the worker pool (fixture-dir.contract.test.ts) and Chromium (e2e/parity.e2e.test.ts) run too.
import { describe, expect, it } from 'vitest';
import isolation from '../../../fixtures/kernel/isolation.json' with { type: 'json' };
import type { HostCallResult } from '../../protocol/run.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { FixtureFileSchema, fixtureAnswer, fixtureProblems, fixtureRequest } from '../../testing/kernel-fixture.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const file = FixtureFileSchema.parse(isolation);

/** The fixture's real WASM binaries, instantiated here: an isolated module's WASM call gets a real answer. */
async function wasmHost(): Promise<(moduleId: string, exportName: string, args: readonly number[]) => HostCallResult> {
  const instances = new Map<string, WebAssembly.Instance>();
  for (const [id, wasm] of Object.entries(file.wasm ?? {})) {
    const bytes = Uint8Array.from(atob(wasm.bytesBase64), (c) => c.charCodeAt(0));
    instances.set(id, (await WebAssembly.instantiate(bytes)).instance);
  }
  return (moduleId, exportName, args) => {
    const exported = instances.get(moduleId)?.exports[exportName];
    if (typeof exported !== 'function') return { ok: false, code: 'wasm-not-declared', message: `no export ${exportName}` };
    return { ok: true, value: (exported as (...a: number[]) => unknown)(...args) };
  };
}

describe('isolation fixtures (in-thread)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}: ${testCase.why}`, async () => {
      const engine = await loadQuickJsNg();
      const wasm = await wasmHost();
      const outcome = await runKernel(fixtureRequest(file, testCase), {
        engine,
        ...SYSTEM_CLOCK,
        hostCall: async (kind, name, args) => (kind === 'wasm' ? wasm(name, String(args[0]), args[1] as number[]) : fixtureAnswer(testCase, name)),
      });
      expect(outcome.healthy).toBe(true);
      expect(fixtureProblems(testCase, outcome.result)).toEqual([]);
    });
  }
});
