// Bench section "kernel": one invocation with no import and with one 50 KB declared module, side
// by side in one run — through our kernel (via the worker pool, and in-thread), through
// @sebastianwessel/quickjs `runSandboxed` (the anchor), and a bare quickjs-ng runtime + context +
// eval in a reused instance (the floor; for the 50 KB case the floor also evaluates the module).
// Every run gets a sandbox in the state no run has touched, restored after each run off the run's
// critical path (the comment above the first table says how). Goals (issue 17): via the pool ≥ 10×
// faster than runSandboxed; 50 KB within 1.5× of the floor. The second table says what making a
// sandbox from nothing costs, step by step (done once per worker, not per run).

import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { loadQuickJs } from '@sebastianwessel/quickjs';
import { NO_GRANTS, type GuestModule, type KernelRunRequest } from '../../shared/protocol/run.ts';
import { instantiateQuickJsNg } from '../../shared/sandbox/supply/engine.ts';
import { zeroedForReuse } from '../../shared/sandbox/supply/memory-snapshot.ts';
import { loadQuickJsNg } from '../../shared/testing/quickjs-engine.ts';
import { SandboxSupply } from '../../shared/sandbox/supply/sandbox-supply.ts';
import { runKernel, runPrepared } from '../../shared/sandbox/kernel/kernel.ts';
import { prepareSandbox } from '../../shared/sandbox/kernel/sandbox.ts';
import { WEB_PART_NAMES } from '../../shared/sandbox/kernel/guest-web.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/kernel/system-clock.ts';
import { compileEngineWasm } from '../../electron/runtime/sandbox/engine-wasm.ts';
import { SandboxPool } from '../../electron/runtime/sandbox/sandbox-pool.ts';
import { Worker } from 'node:worker_threads';
import { kernelLibraryRows } from './kernel-libraries.ts';
import { isolationRows } from './isolation.ts';
import { fmtMs, measure, measureAfterIdle, printRatio, printTable, statsOf, type BenchSection, type Stats } from './harness.ts';

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
/** Idle time before each timed run of the "idle between runs" rows: the worker makes its next sandbox in it. */
const IDLE_MS = 10;

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
    const powers = { ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false as const, code: 'internal' as const, message: 'unused' }) };

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

    // In-thread, as a worker does it: the run's critical path is runPrepared on a sandbox made before.
    const compiled = await compileEngineWasm();
    const supply = new SandboxSupply(async () => compiled);
    /** What each run costs its worker afterwards: freeing the run and restoring the sandbox's image. */
    const restores: number[] = [];
    const onPrepared = async (request: KernelRunRequest, runs: number, label: string): Promise<Stats> => {
      const samples: number[] = [];
      for (let i = 0; i < runs + 20; i++) {
        const taken = await supply.take(false);
        const start = performance.now();
        const outcome = await runPrepared(taken.sandbox, request, powers);
        if (i >= 20) samples.push(performance.now() - start);
        if (!outcome.result.ok) throw new Error(`kernel bench: ${JSON.stringify(outcome.result)}`);
        const retireStart = performance.now();
        supply.retire(taken);
        if (i >= 20) restores.push(performance.now() - retireStart);
      }
      return statsOf(label, samples);
    };
    // The whole of one run made from nothing but the compiled module: instance, sandbox, run, free.
    const wholeTrivial = async () => {
      const { engine: fresh } = await instantiateQuickJsNg(compiled);
      const sandbox = prepareSandbox(fresh, false);
      await runPrepared(sandbox, trivial, powers);
      sandbox.dispose();
    };

    const { runSandboxed } = await loadQuickJs(variant);
    const anchorTrivial = () => runSandboxed(async ({ evalCode }) => evalCode('export default 1'));
    const anchorFifty = () =>
      runSandboxed(async ({ evalCode }) => evalCode('import { op1 } from "bench-big";\nexport default op1(1, 2)'), {
        nodeModules: { 'bench-big': { 'index.js': big, 'package.json': JSON.stringify({ name: 'bench-big', main: 'index.js', type: 'module' }) } },
      });

    // Sanity: every path computes the same answers before anything is timed.
    const checks = [await runKernel(trivial, { ...powers, engine }), await runKernel(fifty, { ...powers, engine })].map((o) => o.result);
    if (!checks.every((r) => r.ok)) throw new Error(`kernel bench: kernel run failed: ${JSON.stringify(checks)}`);
    const anchorCheck = (await anchorFifty()) as { ok: boolean; data?: unknown; error?: unknown };
    if (!anchorCheck.ok) throw new Error(`kernel bench: anchor failed: ${JSON.stringify(anchorCheck)}`);

    // The transport alone: a worker thread that echoes the run message back (what any pool pays).
    const echo = new Worker(`const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));`, {
      eval: true,
    });
    const echoRun = () =>
      new Promise((resolve) => {
        echo.once('message', resolve);
        echo.postMessage({ type: 'run', runId: 1, request: trivial });
      });
    const pool = new SandboxPool({ size: 1 });
    try {
      const warm = await pool.run(fifty);
      if (!warm.ok) throw new Error(`kernel bench: pool run failed: ${JSON.stringify(warm)}`);
      // Every run gets a sandbox in the state no run has touched: engine instance, runtime and
      // context, hardened by the prelude (sandbox.ts `prepareSandbox`), restored after each run to
      // its snapshot from before any run (shared/sandbox/supply/sandbox-supply.ts), off the run's critical
      // path. Pool rows run back to back (as the anchor does) and with the worker idle between
      // runs; after idle both threads must wake, which costs a bare worker echo too, so the echo is
      // measured beside them.
      const rows = [
        await measure('floor: bare context + eval "1"', RUNS, bareTrivial, 20),
        await measureAfterIdle(`kernel via pool, ${IDLE_MS} ms idle between runs: trivial`, RUNS, IDLE_MS, () => pool.run(trivial)),
        await measure('kernel via pool, back to back: trivial', RUNS, () => pool.run(trivial), 20),
        await measure('transport: bare worker echo, back to back', RUNS, echoRun, 20),
        await measureAfterIdle(`transport: bare worker echo, ${IDLE_MS} ms idle between`, RUNS, IDLE_MS, echoRun),
        await onPrepared(trivial, RUNS, 'kernel in-thread, prepared sandbox: trivial'),
        await measure('kernel in-thread, instance + sandbox + run + free: trivial', RUNS, wholeTrivial, 20),
        await measure('anchor runSandboxed: trivial', RUNS, anchorTrivial, 20),
        await measure('floor: bare context + 50 KB module', RUNS, bareFifty, 20),
        await measureAfterIdle(`kernel via pool, ${IDLE_MS} ms idle between runs: 50 KB module`, RUNS, IDLE_MS, () => pool.run(fifty)),
        await measure('kernel via pool, back to back: 50 KB module', RUNS, () => pool.run(fifty), 20),
        await onPrepared(fifty, RUNS, 'kernel in-thread, prepared sandbox: 50 KB module'),
        await measure('anchor runSandboxed: 50 KB module', RUNS, anchorFifty, 20),
      ] as const;
      printTable(`kernel (${RUNS} runs each, 50 KB module = ${big.length} bytes)`, rows);
      const [floorT, poolT, poolBackT, echoBack, echoIdle, preparedT, wholeT, anchorT, floorF, poolF, poolBackF, preparedF, anchorF] = rows;
      printRatio('anchor / kernel via pool (back to back, as the anchor runs), trivial', anchorT, poolBackT, '≥ 10×');
      printRatio('anchor / kernel via pool (idle between runs), trivial', anchorT, poolT);
      const above = (label: string, ours: Stats, transport: Stats) =>
        console.log(
          `ratio anchor / (kernel via pool − bare worker echo), ${label}: ${(anchorT.medianMs / (ours.medianMs - transport.medianMs)).toFixed(2)}× ` +
            `(${fmtMs(anchorT.medianMs)} / (${fmtMs(ours.medianMs)} − ${fmtMs(transport.medianMs)}))`,
        );
      above('back to back', poolBackT, echoBack);
      above(`${IDLE_MS} ms idle between (waking both threads costs the echo too)`, poolT, echoIdle);
      printRatio('anchor / kernel in-thread prepared sandbox, trivial', anchorT, preparedT);
      printRatio('anchor / kernel in-thread whole (instance + sandbox + run), trivial', anchorT, wholeT);
      printRatio('kernel in-thread prepared / floor, trivial', preparedT, floorT);
      printRatio('kernel via pool (idle between runs) / floor, 50 KB', poolF, floorF, '≤ 1.5×');
      printRatio('kernel via pool (back to back) / floor, 50 KB', poolBackF, floorF);
      printRatio('kernel in-thread prepared / floor, 50 KB', preparedF, floorF);
      printRatio('anchor / kernel via pool (idle between runs), 50 KB', anchorF, poolF);
    } finally {
      await pool.close();
      await echo.terminate();
    }

    // What making one sandbox costs, step by step: the work a worker does while idle.
    const steps = {
      newMemory: [] as number[],
      zero: [] as number[],
      reused: [] as number[],
      context: [] as number[],
      prelude: [] as number[],
      preludeWarm: [] as number[],
      preludeWasm: [] as number[],
      free: [] as number[],
    };
    let spare: WebAssembly.Memory | undefined;
    for (let i = 0; i < RUNS + 20; i++) {
      const keep = i >= 20;
      let t = performance.now();
      const { engine: onNew, memory: fresh } = await instantiateQuickJsNg(compiled);
      if (keep) steps.newMemory.push(performance.now() - t);
      void onNew;
      if (spare) {
        t = performance.now();
        const zeroed = zeroedForReuse(spare);
        if (keep) steps.zero.push(performance.now() - t);
        t = performance.now();
        const { engine: onReused } = await instantiateQuickJsNg(compiled, zeroed);
        if (keep) steps.reused.push(performance.now() - t);
        t = performance.now();
        const rt = onReused.newRuntime();
        const ctx = rt.newContext();
        if (keep) steps.context.push(performance.now() - t);
        ctx.dispose();
        rt.dispose();
        t = performance.now();
        const plain = prepareSandbox(onReused, false);
        if (keep) steps.prelude.push(performance.now() - t);
        t = performance.now();
        plain.dispose();
        if (keep) steps.free.push(performance.now() - t);
        t = performance.now();
        const warmed = prepareSandbox(onReused, false, WEB_PART_NAMES);
        if (keep) steps.preludeWarm.push(performance.now() - t);
        warmed.dispose();
        t = performance.now();
        const withWasm = prepareSandbox(onReused, true);
        if (keep) steps.preludeWasm.push(performance.now() - t);
        withWasm.dispose();
      }
      // The zeroed memory is reused from then on, as a worker reuses its own: only the first
      // zeroing touches every page (committing them, ~10 ms once); later ones write committed pages.
      spare ??= fresh;
    }
    const made = [
      statsOf('per run: free the run, restore the image, rewind (retire)', restores),
      statsOf('engine instance on a new 16 MB memory', steps.newMemory),
      statsOf('zeroing a used 16 MB memory', steps.zero),
      statsOf('engine instance on a zeroed memory', steps.reused),
      statsOf('runtime + context', steps.context),
      statsOf('runtime + context + bridge + prelude (no WASM)', steps.prelude),
      statsOf('the same with every web part compiled ahead (a set image compiles only those it names)', steps.preludeWarm),
      statsOf('runtime + context + bridge + prelude (WASM bridge)', steps.preludeWasm),
      statsOf('freeing a used sandbox', steps.free),
    ];
    printTable('what a sandbox costs its worker, off the critical path (each step alone)', made);
    const [restore, newMem, , , context, prelude, warmedPrelude] = made;
    console.log(
      `note: each run costs its worker ${fmtMs(restore!.medianMs)} median afterwards (restoring); making a sandbox from nothing ` +
        `(instance + runtime + context + prelude) costs ${fmtMs(newMem!.medianMs + prelude!.medianMs)}, of which the prelude and bridge ` +
        `${fmtMs(prelude!.medianMs - context!.medianMs)}, and the web parts compiled ahead ${fmtMs(warmedPrelude!.medianMs - prelude!.medianMs)}: ` +
        'done once per worker and kind, and again only after a run that left its sandbox unfit.',
    );

    await kernelLibraryRows(engine);
    await isolationRows(compiled, RUNS);
  },
};
