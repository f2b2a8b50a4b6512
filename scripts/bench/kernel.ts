// Bench section "kernel": one invocation with no import and with one 50 KB declared module,
// side by side in one run — through our kernel (in-thread, and through the worker pool), through
// @sebastianwessel/quickjs `runSandboxed` (the anchor), and a bare quickjs-ng runtime + context +
// eval (the floor; for the 50 KB case the floor also evaluates the same module). Goals from
// issue 3: trivial invocation ≥ 5× faster than runSandboxed; 50 KB within 1.5× of the floor.
//
// Engine rows (issue 14): every run now gets an engine instance of its own (engine-supply.ts), so
// the table also times a fresh instance + runtime + context + eval against a new runtime in a
// reused instance, the in-thread kernel on a fresh engine per run, and the pool with and without
// the worker's idle time to prepare the next engine. The other kernel rows keep one engine so
// they stay comparable with earlier figures.

import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { loadQuickJs } from '@sebastianwessel/quickjs';
import { NO_GRANTS, type GuestModule, type KernelRunRequest } from '../../shared/protocol/run.ts';
import { instantiateQuickJsNg, loadQuickJsNg } from '../../shared/sandbox/engine.ts';
import { EngineSupply } from '../../shared/sandbox/engine-supply.ts';
import { runKernel } from '../../shared/sandbox/kernel.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/system-clock.ts';
import { compileEngineWasm } from '../../electron/runtime/sandbox/engine-wasm.ts';
import { SandboxPool } from '../../electron/runtime/sandbox/sandbox-pool.ts';
import { measure, printRatio, printTable, type BenchSection, type Stats } from './harness.ts';

/** A deterministic ~50 KB ES module: many small functions and a table, like a real utility pack. */
export function fiftyKbModule(): string {
  const lines: string[] = ['// synthetic 50 KB pack module for the kernel bench'];
  let i = 0;
  while (lines.join('\n').length < 50 * 1024) {
    lines.push(`export function op${i}(a, b) { const t = [a, b, ${i}].map((x) => x * 2 + ${i % 7}); return t.reduce((s, x) => s + x, 0) / (b || 1); }`);
    lines.push(`export const table${i} = { id: ${i}, name: "entry-${i}", tags: ["t${i % 5}", "u${i % 3}"], weight: ${(i * 0.37).toFixed(2)} };`);
    i++;
  }
  return `${lines.join('\n')}\n`;
}

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
/** Idle time before each timed run of the "prepared engine" pool rows: the worker makes its next engine in it. */
const IDLE_MS = 10;

/** Like `measure`, but each sample waits `idleMs` untimed first (time for the worker's idle work). */
async function measureAfterIdle(label: string, runs: number, idleMs: number, fn: () => Promise<unknown>, warmup = 5): Promise<Stats> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const start = performance.now();
    await fn();
    if (i >= warmup) samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { label, runs, minMs: samples[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}

export const kernelBench: BenchSection = {
  name: 'kernel',
  async run() {
    const big = fiftyKbModule();
    const engine = await loadQuickJsNg();
    const module: GuestModule = {
      moduleId: 'js:big',
      kind: 'js',
      packName: '@bench/big',
      packVersion: '1.0.0',
      displayName: '@bench/big',
      source: big,
      imports: {},
      digest: 'c'.repeat(64),
    };
    const trivial: KernelRunRequest = { code: '1', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 30_000 };
    const fifty: KernelRunRequest = {
      ...trivial,
      code: 'import { op1 } from "@bench/big";\nop1(1, 2)',
      entries: { '@bench/big': 'js:big' },
      modules: { 'js:big': module },
    };
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false as const, code: 'internal' as const, message: 'unused' }) };

    const bareTrivial = () => {
      const rt = engine.newRuntime();
      const ctx = rt.newContext();
      ctx.unwrapResult(ctx.evalCode('1')).dispose();
      ctx.dispose();
      rt.dispose();
    };
    const bareFifty = () => {
      const rt = engine.newRuntime();
      rt.setModuleLoader(() => big);
      const ctx = rt.newContext();
      const promise = ctx.unwrapResult(ctx.evalCode('import { op1 } from "big";\nexport default op1(1, 2);', 'entry', { type: 'module' }));
      rt.executePendingJobs();
      promise.dispose();
      ctx.dispose();
      rt.dispose();
    };

    // A fresh engine from the thread's compiled module, as the workers make one per run.
    const compiled = await compileEngineWasm();
    const freshTrivial = async () => {
      const { engine: fresh } = await instantiateQuickJsNg(compiled);
      const rt = fresh.newRuntime();
      const ctx = rt.newContext();
      ctx.unwrapResult(ctx.evalCode('1')).dispose();
      ctx.dispose();
      rt.dispose();
    };
    const supply = new EngineSupply(async () => compiled);
    const kernelFresh = async () => runKernel(trivial, { ...powers, engine: (await supply.take()).engine });

    const { runSandboxed } = await loadQuickJs(variant);
    const anchorTrivial = () => runSandboxed(async ({ evalCode }) => evalCode('export default 1'));
    const anchorFifty = () =>
      runSandboxed(async ({ evalCode }) => evalCode('import { op1 } from "bench-big";\nexport default op1(1, 2)'), {
        nodeModules: { 'bench-big': { 'index.js': big, 'package.json': JSON.stringify({ name: 'bench-big', main: 'index.js', type: 'module' }) } },
      });

    // Sanity: every path computes the same answers before anything is timed.
    const checks = [await runKernel(trivial, powers), await runKernel(fifty, powers)].map((o) => o.result);
    if (!checks.every((r) => r.ok)) throw new Error(`kernel bench: kernel run failed: ${JSON.stringify(checks)}`);
    const anchorCheck = (await anchorFifty()) as { ok: boolean; data?: unknown; error?: unknown };
    if (!anchorCheck.ok) throw new Error(`kernel bench: anchor failed: ${JSON.stringify(anchorCheck)}`);

    const pool = new SandboxPool({ size: 1 });
    try {
      const warm = await pool.run(fifty);
      if (!warm.ok) throw new Error(`kernel bench: pool run failed: ${JSON.stringify(warm)}`);
      const rows = [
        await measure('floor: bare context + eval "1"', RUNS, bareTrivial, 20),
        await measure('kernel in-thread: trivial', RUNS, () => runKernel(trivial, powers), 20),
        await measure('kernel via pool: trivial', RUNS, () => pool.run(trivial), 20),
        await measure('anchor runSandboxed: trivial', RUNS, anchorTrivial, 20),
        await measure('floor: bare context + 50 KB module', RUNS, bareFifty, 20),
        await measure('kernel in-thread: 50 KB module', RUNS, () => runKernel(fifty, powers), 20),
        await measure('kernel via pool: 50 KB module', RUNS, () => pool.run(fifty), 20),
        await measure('anchor runSandboxed: 50 KB module', RUNS, anchorFifty, 20),
      ] as const;
      printTable(`kernel (${RUNS} runs each, 50 KB module = ${big.length} bytes)`, rows);
      const [floorT, kernelT, poolT, anchorT, floorF, kernelF, poolF, anchorF] = rows;
      printRatio('anchor / kernel in-thread, trivial', anchorT, kernelT, '≥ 5×');
      printRatio('anchor / kernel via pool, trivial', anchorT, poolT, '≥ 5×');
      printRatio('kernel in-thread / floor, trivial', kernelT, floorT);
      printRatio('kernel in-thread / floor, 50 KB', kernelF, floorF, '≤ 1.5×');
      printRatio('kernel via pool / floor, 50 KB', poolF, floorF, '≤ 1.5×');
      printRatio('anchor / kernel in-thread, 50 KB', anchorF, kernelF);

      const engineRows = [
        await measure('engine: new runtime + context + eval in a reused instance', RUNS, bareTrivial, 20),
        await measure('engine: fresh instance + runtime + context + eval', RUNS, freshTrivial, 20),
        await measure('kernel in-thread, reused engine: trivial', RUNS, () => runKernel(trivial, powers), 20),
        await measure('kernel in-thread, fresh engine per run: trivial', RUNS, kernelFresh, 20),
        await measure('kernel via pool, back to back: trivial', RUNS, () => pool.run(trivial), 20),
        await measureAfterIdle(`kernel via pool, ${IDLE_MS} ms idle first (engine prepared): trivial`, RUNS, IDLE_MS, () => pool.run(trivial)),
      ] as const;
      printTable(`kernel engines (${RUNS} runs each; the engine module is compiled once per thread)`, engineRows);
      const [reusedE, freshE, kernelReused, kernelFreshE, poolBack, poolIdle] = engineRows;
      printRatio('fresh instance / reused instance, runtime + context + eval', freshE, reusedE);
      printRatio('kernel in-thread, fresh engine / reused engine, trivial', kernelFreshE, kernelReused);
      printRatio('pool back to back / pool with a prepared engine, trivial', poolBack, poolIdle);
      printRatio('pool with a prepared engine / kernel in-thread reused engine, trivial', poolIdle, kernelReused);
    } finally {
      await pool.close();
    }
  },
};
