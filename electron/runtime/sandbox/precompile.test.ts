// Modules compiled into a sandbox before its run (shared/sandbox/precompile.ts), on the real
// engine: a run on such a sandbox answers exactly as one that compiles its modules itself — value,
// logs, receipt, errors —, no module code runs before the run, and a sandbox holding modules that
// are not the run's own (another set, a stale source under the same id, other imports) goes back
// to its image before the run. Each case compares against the same run on a sandbox that compiled
// nothing, so a difference in either direction fails.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type GuestModule, type KernelRunRequest, type RunResult } from '../../../shared/protocol/run.ts';
import { SandboxSupply, type SuppliedSandbox } from '../../../shared/sandbox/engine-supply.ts';
import { fitsRun, precompileInto, runPrepared } from '../../../shared/sandbox/kernel.ts';
import { PRECOMPILE_MAX_BYTES } from '../../../shared/sandbox/precompile.ts';
import { SYSTEM_CLOCK } from '../../../shared/sandbox/system-clock.ts';
import { compileEngineWasm } from './engine-wasm.ts';
import { SandboxPool } from './sandbox-pool.ts';

const powers = { ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false as const, code: 'capability-denied' as const, message: 'none' }) };

function module(id: string, pack: string, source: string, imports: Record<string, string> = {}): GuestModule {
  return { moduleId: id, kind: 'js', packName: pack, packVersion: '1.0.0', displayName: `${pack} ${id}`, source, imports, digest: id.padEnd(64, '0') };
}

function request(code: string, modules: readonly GuestModule[], entries: Record<string, string>, inputs: Record<string, unknown> = {}): KernelRunRequest {
  return { code, entries, modules: Object.fromEntries(modules.map((m) => [m.moduleId, m])), inputs, grants: NO_GRANTS, timeoutMs: 10_000 };
}

/** The result with its wall time left out (the one field that differs between two runs). */
function comparable(result: RunResult): unknown {
  return { ...result, receipt: { ...result.receipt, wallMs: 0 } };
}

// A pack whose entry counts its own evaluations on the global object and reads a run input at its
// top level; its helper module is shared by two entries, so the receipt's order is tested too.
const counted = module(
  'm_count',
  '@t/count',
  'import { twice } from "./twice.js";\nglobalThis.evaluations = (globalThis.evaluations ?? 0) + 1;\nexport const seen = typeof limit === "number" ? limit : "no input";\nexport function count() { return twice(globalThis.evaluations); }\nconsole.log("count evaluated");\n',
  { './twice.js': 'm_twice' },
);
const twice = module('m_twice', '@t/count', 'export function twice(n) { return n * 2; }\n');
const other = module(
  'm_other',
  '@t/count',
  'import { twice } from "./twice.js";\nimport { extra } from "./extra.js";\nexport const four = twice(2) + extra;\n',
  {
    './twice.js': 'm_twice',
    './extra.js': 'm_extra',
  },
);
const extra = module('m_extra', '@t/count', 'export const extra = 0;\n');
const countSet = [counted, twice, other, extra];
const countEntries = { '@t/count': 'm_count', '@t/count/other': 'm_other' };
const countCode = 'import { count, seen } from "@t/count"; return [count(), seen, globalThis.evaluations];';

/** A run that declares no module: a sandbox fits it only if nothing is compiled into it. */
const NOTHING: KernelRunRequest['modules'] = {};

/** Retire `taken` so that its sandbox compiles `run`'s modules for the next run: the supply does so for a set retired twice in a row. */
async function retireCompilingAhead(supply: SandboxSupply, taken: SuppliedSandbox, run: KernelRunRequest): Promise<void> {
  supply.retire(taken, run);
  supply.retire(await supply.take(false, run), run);
}

/** Runs `run` on a sandbox that compiled nothing, then on one that compiled its modules first (when they compile); returns both results. */
async function bothWays(supply: SandboxSupply, run: KernelRunRequest, compiles = true): Promise<[RunResult, RunResult]> {
  const plain = await supply.take(false);
  expect(fitsRun(plain.sandbox, NOTHING)).toBe(true);
  const fresh = (await runPrepared(plain.sandbox, run, powers)).result;
  await retireCompilingAhead(supply, plain, run);
  const ahead = await supply.take(false, run);
  expect(fitsRun(ahead.sandbox, NOTHING)).toBe(!compiles);
  const result = (await runPrepared(ahead.sandbox, run, powers)).result;
  supply.retire(ahead);
  return [fresh, result];
}

describe('modules compiled before the run', () => {
  it('answers as a run that compiles them: value, logs, receipt order; module code runs once, in the run, after its inputs are set', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const run = request(countCode, countSet, countEntries, { limit: 7 });
    const [fresh, ahead] = await bothWays(supply, run);
    expect(fresh).toMatchObject({ ok: true, value: [2, 7, 1], logs: [{ level: 'log', text: 'count evaluated' }] });
    expect(fresh.receipt.modules.map((m) => m.moduleId)).toEqual(['m_count', 'm_twice']);
    expect(comparable(ahead)).toEqual(comparable(fresh));

    // Importing only the second entry: it reaches the shared helper first, then its own.
    const second = request('import { four } from "@t/count/other"; return four;', countSet, countEntries);
    const [freshOther, aheadOther] = await bothWays(supply, second);
    expect(freshOther).toMatchObject({ ok: true, value: 4 });
    expect(freshOther.receipt.modules.map((m) => m.moduleId)).toEqual(['m_other', 'm_twice', 'm_extra']);
    expect(comparable(aheadOther)).toEqual(comparable(freshOther));
  }, 60_000);

  it('runs no module code ahead, whatever the module exports (one that exports the name the precompile entry imports included)', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const sneaky = module('m_sneaky', '@t/sneaky', 'globalThis.ran = (globalThis.ran ?? 0) + 1;\nexport const x = 1;\nexport default 2;\n');
    const run = request('import value, { x } from "@t/sneaky"; return [value, x, globalThis.ran];', [sneaky], { '@t/sneaky': 'm_sneaky' });
    const taken = await supply.take(false, run);
    await runPrepared(taken.sandbox, run, powers);
    await retireCompilingAhead(supply, taken, run);
    const ahead = await supply.take(false, run);
    expect(fitsRun(ahead.sandbox, NOTHING)).toBe(false);
    const result = (await runPrepared(ahead.sandbox, run, powers)).result;
    supply.retire(ahead);
    expect(result).toMatchObject({ ok: true, value: [2, 1, 1] });
  }, 60_000);

  it('a module that throws at its top level, a syntax error and a denied import answer as without compiling ahead', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const throwing = module('m_throw', '@t/bad', 'throw new Error("top level " + typeof limit);\nexport const a = 1;\n');
    const broken = module('m_broken', '@t/bad', 'export const = ;\n');
    const denied = module('m_denied', '@t/bad', 'import fs from "node:fs";\nexport const b = fs;\n');
    const missing = module('m_missing', '@t/bad', 'import { nothing } from "./throw.js";\nexport const c = nothing;\n', { './throw.js': 'm_throw' });
    for (const [m, code, compiles] of [
      [throwing, 'import { a } from "@t/bad"; return a;', true],
      [broken, 'import { a } from "@t/bad"; return a;', false],
      [denied, 'import { b } from "@t/bad"; return b;', false],
      [missing, 'import { c } from "@t/bad"; return c;', false],
    ] as const) {
      const modules = m === missing ? [missing, throwing] : [m];
      const run = request(code, modules, { '@t/bad': m.moduleId }, { limit: 1 });
      const [fresh, ahead] = await bothWays(supply, run, compiles);
      expect(fresh.ok).toBe(false);
      expect(comparable(ahead)).toEqual(comparable(fresh));
    }
    // Each of those compiles nothing ahead but the throwing module (compiling it succeeds; its error is the run's).
    const taken = await supply.take(false);
    supply.retire(taken);
    for (const [m, expected] of [
      [throwing, 'done'],
      [broken, 'failed'],
      [denied, 'failed'],
    ] as const) {
      const sandbox = await supply.take(false);
      const modules = { [m.moduleId]: m };
      expect(precompileInto(sandbox.sandbox, modules)).toBe(expected);
      supply.retire(sandbox);
    }
  }, 60_000);

  it('a sandbox holding modules that are not the run’s own goes back to its image first: a changed source or imports under the same id, another set, none', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const marker = 'precompiled-marker-';
    const v = (n: number, imports: Record<string, string> = {}) => module('m_v', '@t/v', `export const version = "${marker}${n}";\n`, imports);
    const read = (...modules: GuestModule[]) => request('import { version } from "@t/v"; return version;', modules, { '@t/v': 'm_v' });
    const helper = module('m_h', '@t/v', 'export const h = "h";\n');
    const compiledText = `${marker}1`;
    const cases = [
      { run: read(v(1)), kept: true, value: `${marker}1` },
      { run: read(v(2)), kept: false, value: `${marker}2` },
      { run: read(v(1, { './h.js': 'm_h' }), helper), kept: false, value: `${marker}1` },
      { run: request('return "other set";', [helper], { '@t/h': 'm_h' }), kept: false, value: 'other set' },
      { run: request('return "none";', [], {}), kept: false, value: 'none' },
    ];
    for (const { run, kept, value } of cases) {
      // The sandbox holds v1 compiled, source and all, before any run asked for it.
      const before = await supply.take(false);
      await retireCompilingAhead(supply, before, read(v(1)));
      expect(occurrences(before.memory, compiledText)).toBeGreaterThan(0);

      const taken = await supply.take(false, run);
      expect(taken.memory).toBe(before.memory);
      expect(occurrences(taken.memory, compiledText) > 0).toBe(kept);
      expect((await runPrepared(taken.sandbox, run, powers)).result).toMatchObject({ ok: true, value });
      supply.retire(taken);
    }
  }, 60_000);

  it('compiles ahead only a set retired twice in a row: a supply whose runs change set every time compiles nothing', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const a = request('import { version } from "@t/a"; return version;', [module('m_a', '@t/a', 'export const version = "a";\n')], { '@t/a': 'm_a' });
    const b = request('import { version } from "@t/b"; return version;', [module('m_b', '@t/b', 'export const version = "b";\n')], { '@t/b': 'm_b' });
    const held: boolean[] = [];
    for (const run of [a, b, a, b, b, b, a]) {
      const taken = await supply.take(false, run);
      held.push(!fitsRun(taken.sandbox, NOTHING));
      expect((await runPrepared(taken.sandbox, run, powers)).result).toMatchObject({ ok: true, value: run === a ? 'a' : 'b' });
      supply.retire(taken, run);
    }
    // The sixth finds b compiled; the seventh (a) finds its sandbox back to its image, b gone.
    expect(held).toEqual([false, false, false, false, false, true, false]);
  }, 60_000);

  it("compiles ahead from one caller's own runs, for that caller's runs only: another caller's run with the same set finds it back at its image", async () => {
    // The timing oracle (issue 26 item 6): a run must not be faster for what another caller imported.
    const supply = new SandboxSupply(compileEngineWasm);
    const marker = 'per-caller-marker';
    const mine = request('import { version } from "@t/p"; return version;', [module('m_p', '@t/p', `export const version = "${marker}";\n`)], {
      '@t/p': 'm_p',
    });
    const as = (partition: string | undefined): KernelRunRequest => (partition === undefined ? mine : { ...mine, partition });
    const heldFor: string[] = [];
    for (const partition of ['a', 'a', 'a', 'b', 'b', 'b', 'a', undefined, undefined, undefined]) {
      const taken = await supply.take(false, as(partition));
      heldFor.push(occurrences(taken.memory, marker) > 0 ? (partition ?? '-') : '');
      expect((await runPrepared(taken.sandbox, as(partition), powers)).result).toMatchObject({ ok: true, value: marker });
      supply.retire(taken, as(partition));
    }
    // A caller's third run in a row finds its set compiled ahead; a run right after another
    // caller's (the 4th, 7th and 8th) finds the sandbox back at its image, though its set is the same.
    expect(heldFor).toEqual(['', '', 'a', '', '', 'b', '', '', '', '-']);
  }, 60_000);

  it('compiles nothing ahead for WASM modules or past the size bound', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const taken = await supply.take(false);
    const wasm = { ...module('m_w', '@t/w', 'export const w = 1;\n'), kind: 'wasm' as const };
    const big = module('m_big', '@t/big', `export const s = "${'a'.repeat(PRECOMPILE_MAX_BYTES)}";\n`);
    expect(precompileInto(taken.sandbox, { m_w: wasm })).toBeUndefined();
    expect(precompileInto(taken.sandbox, { m_big: big })).toBeUndefined();
    expect(fitsRun(taken.sandbox, NOTHING)).toBe(true);
    supply.retire(taken);
  }, 60_000);

  it('through the pool: a module set run twice is compiled ahead for the third run, and a changed source under the same id is read anew', async () => {
    const pool = new SandboxPool({ size: 1 });
    try {
      const v = (n: number) =>
        request('import { version } from "@t/v"; return version;', [module('m_v', '@t/v', `export const version = ${n};\n`)], { '@t/v': 'm_v' });
      const answers: unknown[] = [];
      for (const n of [1, 1, 1, 2, 2, 2, 1]) {
        const result = await pool.run(v(n));
        answers.push(result.ok ? result.value : result.code);
      }
      expect(answers).toEqual([1, 1, 1, 2, 2, 2, 1]);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

function occurrences(memory: WebAssembly.Memory, text: string): number {
  const haystack = Buffer.from(memory.buffer);
  const needle = Buffer.from(text, 'utf8');
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}
