// The kernel section's second half (issue 27): runs that import a real npm library (zod, date-fns,
// marked; library-runs.ts) beside a trivial run, through the worker pool with two workers and the
// four runs alternating one by one, back to back and with the workers idle between runs. A warm
// run of a set finds its modules evaluated in the worker's image of that set (module-image.ts).
// Goal: each ≤ 2× the trivial run of the same measurement (at the very least ≤ 4×).
//
// Then the first run after install against its floor, a bare engine in a new worker thread
// (bare-floor-worker.ts; the comment above those rows says how each is warmed). Goal: < 2× the
// floor.

import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { KernelRunRequest } from '../../shared/protocol/run.ts';
import { SandboxPool } from '../../electron/runtime/sandbox/sandbox-pool.ts';
import { measure, measureInterleaved, printRatio, printTable, statsOf, type Stats } from './harness.ts';
import { installLibraryRoot, LIBRARY_RUNS, TRIVIAL_RUN } from './library-runs.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const IDLE_MS = 10;
/** New pools (one per sample) for the first-run rows. */
const FIRST_RUNS = 9;
/** Idle before a first run (an install before it takes seconds; the worker prepares meanwhile). */
const INSTALL_IDLE_MS = 200;

/** The floor of one first run: a new worker thread with a bare engine, warmed with `warm`, timing `target` (bare-floor-worker.ts). */
async function floorInWorker(warm: readonly KernelRunRequest[], target: KernelRunRequest): Promise<number> {
  const entry = new URL('./bare-floor-worker.ts', import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  const worker = new Worker(boot, { eval: true, workerData: { warm, target } });
  try {
    const [ms] = (await once(worker, 'message')) as [number];
    return ms;
  } finally {
    await worker.terminate();
  }
}

/** What the library's own modules cost a bare engine: a runtime and context, compile and evaluate the set, free. */
function bareEvaluate(engine: QuickJSWASMModule, request: KernelRunRequest): void {
  const rt = engine.newRuntime();
  rt.setModuleLoader(
    (id) => request.modules[id]!.source,
    (base, requested) => (base === 'entry' ? request.entries[requested]! : request.modules[base]!.imports[requested]!),
  );
  const ctx = rt.newContext();
  try {
    const imports = Object.keys(request.entries)
      .map((specifier) => `import * as m${specifier.length} from ${JSON.stringify(specifier)};`)
      .join('\n');
    const promise = ctx.unwrapResult(ctx.evalCode(imports, 'entry', { type: 'module' }));
    rt.executePendingJobs();
    const state = ctx.getPromiseState(promise);
    const failed = state.type === 'rejected' ? ctx.dump(state.error) : state.type === 'pending' ? 'pending' : undefined;
    // A settled module evaluation may answer with the promise's own handle.
    if (state.type !== 'pending' && (state.type === 'rejected' ? state.error : state.value) !== promise)
      (state.type === 'rejected' ? state.error : state.value).dispose();
    promise.dispose();
    if (failed !== undefined) throw new Error(`library bench: bare evaluation failed: ${JSON.stringify(failed)}`);
  } finally {
    ctx.dispose();
    rt.dispose();
  }
}

export async function kernelLibraryRows(engine: QuickJSWASMModule): Promise<void> {
  const libraries = await installLibraryRoot();
  try {
    const requests = await libraries.kernelRequests();
    const trivial: KernelRunRequest = { code: TRIVIAL_RUN.code, entries: {}, modules: {}, inputs: {}, grants: requests[0]!.grants, timeoutMs: 30_000 };
    // Each library twice: used as a Code node would, and imported with one binding read (what importing alone costs).
    const all = [trivial, ...requests, ...requests.map((r, i) => ({ ...r, code: LIBRARY_RUNS[i]!.importOnly }))];
    const labels = [TRIVIAL_RUN.label, ...LIBRARY_RUNS.map((r) => `${r.label}, used`), ...LIBRARY_RUNS.map((r) => `${r.label}, imported only`)];
    const expected = [TRIVIAL_RUN.expected, ...LIBRARY_RUNS.map((r) => r.expected), ...LIBRARY_RUNS.map(() => 'function')];
    const pool = new SandboxPool({ size: 2 });
    try {
      const checked = async (index: number) => {
        const result = await pool.run(all[index]!);
        if (!result.ok || JSON.stringify(result.value) !== JSON.stringify(expected[index])) {
          throw new Error(`library bench: ${labels[index]} answered ${JSON.stringify(result)}`);
        }
      };
      for (let i = 0; i < all.length; i++) await checked(i);
      const cases = (suffix: string) =>
        all.map((_, index) => ({ label: `kernel via pool (2 workers), sets alternating, ${suffix}: ${labels[index]}`, fn: () => checked(index) }));
      const backToBack = await measureInterleaved(cases('back to back'), { runs: RUNS, warmup: 20, block: 1 });
      const idle = await measureInterleaved(cases(`${IDLE_MS} ms idle first`), { runs: RUNS, warmup: 5, block: 1, idleMs: IDLE_MS });
      printTable(`kernel: runs importing real libraries (${RUNS} runs each, one of each set in turn)`, [...backToBack, ...idle]);
      for (const [rows, when] of [
        [backToBack, 'back to back'],
        [idle, `${IDLE_MS} ms idle first`],
      ] as const) {
        for (let i = 1; i < rows.length; i++) printRatio(`${labels[i]} / trivial, ${when}`, rows[i]!, rows[0]!, '≤ 2× (at the very least ≤ 4×)');
      }
    } finally {
      await pool.close();
    }

    // The first run after install, each on a pool that has never seen the set: a new pool whose
    // worker has served other runs (trivial ones and the other two libraries, as a running app's
    // has), one run importing the library, against what the library's own compile + evaluate costs
    // a bare quickjs-ng engine in a new worker thread warmed the same way (the floor;
    // bare-floor-worker.ts). The same on this long-warm thread is shown beside it: a fresh thread's
    // engine code is slower at first.
    const firstRows: Stats[] = [];
    const floorRows: Stats[] = [];
    const threadRows: Stats[] = [];
    for (const [index, request] of requests.entries()) {
      const samples: number[] = [];
      for (let i = 0; i < FIRST_RUNS; i++) {
        const fresh = new SandboxPool({ size: 1 });
        try {
          // As in a running app: the worker has served other runs (its engine's code tiered up,
          // the module paths warm), not the set about to be installed.
          for (let k = 0; k < 10; k++) await fresh.run(trivial);
          for (const other of requests) if (other !== request) await fresh.run(other);
          // An install takes seconds: the worker is idle before the first run that imports it.
          await new Promise((resolve) => setTimeout(resolve, INSTALL_IDLE_MS));
          // The import alone (one binding read): what the floor measures, without the library's own work.
          const start = performance.now();
          const result = await fresh.run({ ...request, code: LIBRARY_RUNS[index]!.importOnly });
          samples.push(performance.now() - start);
          if (!result.ok) throw new Error(`library bench: first run of ${labels[index + 1]}: ${JSON.stringify(result)}`);
        } finally {
          await fresh.close();
        }
      }
      firstRows.push(statsOf(`kernel via pool, first run importing the set: ${LIBRARY_RUNS[index]!.label}`, samples));
      const floors: number[] = [];
      for (let i = 0; i < FIRST_RUNS; i++)
        floors.push(
          await floorInWorker(
            requests.filter((other) => other !== request),
            request,
          ),
        );
      floorRows.push(statsOf(`floor: bare engine in a new worker (warmed alike), compile + evaluate: ${LIBRARY_RUNS[index]!.label}`, floors));
      threadRows.push(
        await measure(`bare engine on this thread (warm), compile + evaluate: ${LIBRARY_RUNS[index]!.label}`, 20, () => bareEvaluate(engine, request), 3),
      );
    }
    printTable(`kernel: the first run that imports a library (${FIRST_RUNS} new pools each) and the library's own cost`, [
      ...firstRows,
      ...floorRows,
      ...threadRows,
    ]);
    for (let i = 0; i < firstRows.length; i++) printRatio(`first run / floor, ${LIBRARY_RUNS[i]!.label}`, firstRows[i]!, floorRows[i]!, '< 2×');
    const sizes = requests.map(
      (r, i) =>
        `${LIBRARY_RUNS[i]!.label}: ${Object.keys(r.modules).length} module(s), ${Object.values(r.modules).reduce((n, m) => n + m.source.length, 0)} chars`,
    );
    console.log(`note: the floor compiles and evaluates the same sources the kernel runs (${sizes.join('; ')}).`);
  } finally {
    await libraries.dispose();
  }
}
