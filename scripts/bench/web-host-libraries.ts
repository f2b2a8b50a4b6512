// The web-host section's library rows (issue 27): Code node runs that import a real npm library
// (zod, date-fns, marked; library-runs.ts), used and imported only, beside a trivial run, over
// HTTP to `sandbox-packs serve` in a process of its own (serve-process.ts) — the client in
// another process, as the browser and agents are. One run of each in turn, so the server's
// workers see the module sets alternate; back to back and after idle. Goal: each ≤ 2× the trivial
// run of the same measurement (at the very least ≤ 4×).

import { measureInterleaved, printRatio, printTable } from './harness.ts';
import { installLibraryRoot, LIBRARY_RUNS, TRIVIAL_RUN } from './library-runs.ts';
import { startServeProcess } from './serve-process.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const IDLE_MS = 5;

export async function webHostLibraryRows(): Promise<void> {
  const libraries = await installLibraryRoot();
  try {
    const server = await startServeProcess(libraries.root);
    try {
      const runs = [
        { label: TRIVIAL_RUN.label, code: TRIVIAL_RUN.code, packages: [], expected: TRIVIAL_RUN.expected },
        ...LIBRARY_RUNS.map((r) => ({ label: `${r.label}, used`, code: r.code, packages: r.packages, expected: r.expected })),
        ...LIBRARY_RUNS.map((r) => ({ label: `${r.label}, imported only`, code: r.importOnly, packages: r.packages, expected: 'function' })),
      ];
      const call = async (index: number) => {
        const run = runs[index]!;
        const answer = await server.call('code.run', { code: run.code, packages: [...run.packages] });
        if (!answer.ok || !answer.value.result.ok || JSON.stringify(answer.value.result.value) !== JSON.stringify(run.expected)) {
          throw new Error(`web-host library bench: ${run.label} answered ${JSON.stringify(answer)}`);
        }
      };
      for (let i = 0; i < runs.length; i++) await call(i);
      const cases = (suffix: string) =>
        runs.map((run, index) => ({ label: `code.run over HTTP to a serve process, sets alternating, ${suffix}: ${run.label}`, fn: () => call(index) }));
      const backToBack = await measureInterleaved(cases('back to back'), { runs: RUNS, warmup: 20, block: 1 });
      const idle = await measureInterleaved(cases(`${IDLE_MS} ms idle first`), { runs: RUNS, warmup: 5, block: 1, idleMs: IDLE_MS });
      printTable(`web host: runs importing real libraries, client in another process (${RUNS} runs each, one of each in turn)`, [...backToBack, ...idle]);
      for (const [rows, when] of [
        [backToBack, 'back to back'],
        [idle, `${IDLE_MS} ms idle first`],
      ] as const) {
        for (let i = 1; i < rows.length; i++)
          printRatio(`over HTTP, ${runs[i]!.label} / trivial, ${when}`, rows[i]!, rows[0]!, '≤ 2× (at the very least ≤ 4×)');
      }
    } finally {
      await server.stop();
    }
  } finally {
    await libraries.dispose();
  }
}
