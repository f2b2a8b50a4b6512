// Bench rows for isolation (issue 31), part of section "kernel": a run importing a small pack
// isolated and not, and the cost of one call across the boundary — a short string in and out
// (goal ≤ 20 µs), and per KB copied. In-thread on prepared sandboxes, as a worker runs them: both
// contexts are in the run's runtime, so the boundary's cost is all on this thread.
//
// A call's cost is measured inside one run: the run calls the export N times in a loop, and the
// same run with the loop empty is subtracted, so sandbox, import and answer costs cancel out.

import { NO_GRANTS, type GuestModule, type KernelRunRequest } from '../../shared/protocol/run.ts';
import { runPrepared } from '../../shared/sandbox/kernel/kernel.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/kernel/system-clock.ts';
import { SandboxSupply } from '../../shared/sandbox/supply/sandbox-supply.ts';
import { fmtMs, printTable, statsOf, type Stats } from './harness.ts';

const PACK: GuestModule = {
  moduleId: 'js:bench-text',
  kind: 'js',
  packName: '@bench/text',
  packVersion: '1.0.0',
  displayName: '@bench/text',
  source: 'export function up(s) { return s.toUpperCase(); }\nexport function same(s) { return s; }\nexport const VERSION = "1";\n',
  imports: {},
  digest: '0'.repeat(64),
};

const request = (code: string, isolated: boolean): KernelRunRequest => ({
  code,
  entries: { '@bench/text': PACK.moduleId },
  modules: { [PACK.moduleId]: PACK },
  inputs: {},
  grants: NO_GRANTS,
  timeoutMs: 30_000,
  ...(isolated ? { isolated: ['@bench/text'] } : {}),
});

const powers = { ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false as const, code: 'internal' as const, message: 'unused' }) };

export async function isolationRows(compiled: WebAssembly.Module, runs: number): Promise<void> {
  const supply = new SandboxSupply(async () => compiled);
  /** Run `code` `runs` times (after warm-up) on prepared sandboxes, timing runPrepared alone. */
  const time = async (label: string, code: string, isolated: boolean, n = runs): Promise<Stats> => {
    const samples: number[] = [];
    for (let i = 0; i < n + 10; i++) {
      const taken = await supply.take(false, request(code, isolated));
      const start = performance.now();
      const outcome = await runPrepared(taken.sandbox, request(code, isolated), powers);
      const ms = performance.now() - start;
      supply.retire(taken);
      if (!outcome.result.ok) throw new Error(`isolation bench: ${label}: ${JSON.stringify(outcome.result)}`);
      if (i >= 10) samples.push(ms);
    }
    return statsOf(label, samples);
  };
  const CALLS = 2_000;
  const loop = (body: string) =>
    `import { up, same } from "@bench/text";\nconst s = "hello, isolated world";\nconst big = "x".repeat(64 * 1024);\nlet r;\nfor (let i = 0; i < ${CALLS}; i++) { ${body} }\nreturn typeof r;`;
  const rows = [
    await time('run importing a small pack, not isolated', 'import { up } from "@bench/text";\nreturn up("a");', false),
    await time('run importing a small pack, isolated', 'import { up } from "@bench/text";\nreturn up("a");', true),
    await time(`${CALLS} empty loop turns, not isolated (the subtrahend)`, loop(''), false, 40),
    await time(`${CALLS} empty loop turns, isolated (the subtrahend)`, loop(''), true, 40),
    await time(`${CALLS} calls up(short string), not isolated`, loop('r = up(s);'), false, 40),
    await time(`${CALLS} calls up(short string), isolated`, loop('r = up(s);'), true, 40),
    await time(`${CALLS} calls same({ s: short string }), isolated (copied)`, loop('r = same({ s });'), true, 40),
    await time(`${CALLS} calls same({ s: 64 KB string }), isolated (copied)`, loop('r = same({ s: big });'), true, 20),
  ] as const;
  printTable(`isolation (issue 31): in-thread, prepared sandboxes (${runs} runs; call rows: one run of ${CALLS} calls each)`, rows);
  const [plain, isolated, emptyPlain, emptyIso, shortPlain, shortIso, objectIso, bigIso] = rows;
  const perCall = (s: Stats, empty = emptyIso) => ((s.medianMs - empty.medianMs) / CALLS) * 1000;
  console.log(
    `a run that imports the pack isolated costs ${fmtMs(isolated.medianMs - plain.medianMs)} more (${fmtMs(isolated.medianMs)} vs ${fmtMs(plain.medianMs)})`,
  );
  console.log(
    `one call of up(short string) across the boundary: ${perCall(shortIso).toFixed(1)} µs (goal ≤ 20 µs: ${perCall(shortIso) <= 20 ? 'met' : 'NOT met'}); ` +
      `the same call not isolated ${perCall(shortPlain, emptyPlain).toFixed(2)} µs (strings, numbers and booleans cross as they are: no copy)`,
  );
  const perKb = (perCall(bigIso) - perCall(objectIso)) / 128;
  console.log(
    `an object argument and answer are copied: same({ s }) with a short string ${perCall(objectIso).toFixed(1)} µs, with a 64 KB string ${perCall(bigIso).toFixed(0)} µs: ${perKb.toFixed(2)} µs per KB copied (128 KB in and out)`,
  );
}
