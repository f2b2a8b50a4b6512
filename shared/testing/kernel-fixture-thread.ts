// Test support: one case of a kernel fixture file on the in-thread kernel, with the file's real
// WASM binaries answering its WASM calls and its scripted answers the rest (the Node suites of
// hardening and isolation). Apart from kernel-fixture.ts, which the browser parity page imports.

import type { KernelOutcome } from '../sandbox/kernel/kernel.ts';
import { runKernel } from '../sandbox/kernel/kernel.ts';
import { SYSTEM_CLOCK } from '../sandbox/kernel/system-clock.ts';
import { fixtureAnswer, fixtureRequest, fixtureWasmHost, type FixtureCase, type FixtureFile } from './kernel-fixture.ts';
import { loadQuickJsNg } from './quickjs-engine.ts';

export async function runFixtureCaseInThread(file: FixtureFile, testCase: FixtureCase): Promise<KernelOutcome> {
  const engine = await loadQuickJsNg();
  const wasm = await fixtureWasmHost(file);
  return runKernel(fixtureRequest(file, testCase), {
    engine,
    ...SYSTEM_CLOCK,
    hostCall: async (kind, name, args) => (kind === 'wasm' ? wasm(name, String(args[0]), args[1] as number[]) : fixtureAnswer(testCase, name)),
  });
}
