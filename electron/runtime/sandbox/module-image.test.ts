// Module sets evaluated into images (shared/sandbox/supply/module-image.ts), on the real engine: a run on
// its set's image answers exactly as a run that evaluates the set itself — value, logs, receipt
// order, errors with their positions —; no module's initialisation sees a run's inputs either way;
// a set whose initialisation needs a capability, throws or is denied an import is never imaged and
// answers as before; each run finds the set as its evaluation left it, never as an earlier run
// left it; an image is never served to another caller, for another source under the same id, or
// past the memory budget. Each comparison runs the same request on the plain sandbox (which
// evaluates the set in the run) and on the image, so a difference in either direction fails.
// It tests shared/ code from here because its supplies compile the registered engine asset, which
// engine-wasm.ts reads with node:fs.

import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type GuestModule, type KernelRunRequest, type RunResult } from '../../../shared/protocol/run.ts';
import { SandboxSupply } from '../../../shared/sandbox/supply/sandbox-supply.ts';
import { runPrepared, type RunPowers } from '../../../shared/sandbox/kernel/kernel.ts';
import { imagePlan } from '../../../shared/sandbox/supply/module-image.ts';
import { SYSTEM_CLOCK } from '../../../shared/sandbox/kernel/system-clock.ts';
import { isolationSecret, mayBeDirty, SCAN_CODE, scanInputs, type ScanEntry } from '../../../shared/testing/isolation-probe.ts';
import { compileEngineWasm } from './engine-wasm.ts';

const asked: string[] = [];
const powers: RunPowers = {
  ...SYSTEM_CLOCK,
  hostCall: async (_kind, name, args) => {
    asked.push(`${name}(${JSON.stringify(args)})`);
    return name === 'getSecret' ? { ok: true, value: 'secret-value' } : { ok: false, code: 'capability-denied', message: 'none' };
  },
};

function module(id: string, pack: string, source: string, imports: Record<string, string> = {}): GuestModule {
  return { moduleId: id, kind: 'js', packName: pack, packVersion: '1.0.0', displayName: `${pack} ${id}`, source, imports, digest: id.padEnd(64, '0') };
}

function request(code: string, modules: readonly GuestModule[], entries: Record<string, string>, extra: Partial<KernelRunRequest> = {}): KernelRunRequest {
  return { code, entries, modules: Object.fromEntries(modules.map((m) => [m.moduleId, m])), inputs: {}, grants: NO_GRANTS, timeoutMs: 10_000, ...extra };
}

/** The result with its wall time left out (the one field that differs between two runs). */
const comparable = (result: RunResult): unknown => ({ ...result, receipt: { ...result.receipt, wallMs: 0 } });

/** The run on the plain sandbox (its set evaluated in the run), then on its set's image (made now if it can be); both results, and whether the image was used. */
async function bothWays(supply: SandboxSupply, run: KernelRunRequest): Promise<{ plain: RunResult; imaged: RunResult; usedImage: boolean }> {
  const plainSandbox = await supply.take(false);
  expect(plainSandbox.sandbox.image).toBeUndefined();
  const plain = (await runPrepared(plainSandbox.sandbox, run, powers)).result;
  supply.retire(plainSandbox);
  const taken = await supply.take(false, run);
  const usedImage = taken.sandbox.image !== undefined;
  const imaged = (await runPrepared(taken.sandbox, run, powers)).result;
  supply.retire(taken);
  return { plain, imaged, usedImage };
}

const keyOf = (run: KernelRunRequest) => imagePlan(run, Object.keys(run.entries), false)!.key;

// A pack whose entry counts its own evaluations and logs at its top level; its helper is shared by two entries.
const counted = module(
  'm_count',
  '@t/count',
  'import { twice } from "./twice.js";\nglobalThis.evaluations = (globalThis.evaluations ?? 0) + 1;\nexport const seen = typeof limit === "number" ? limit : "no input";\nexport const state = [];\nexport function count() { state.push(1); return twice(globalThis.evaluations) + state.length; }\nconsole.log("count evaluated");\n',
  { './twice.js': 'm_twice' },
);
const twice = module('m_twice', '@t/count', 'export function twice(n) { return n * 2; }\nexport function fails() { throw new RangeError("from the pack"); }\n');
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

describe('module sets evaluated into images', () => {
  it('answers as a run that evaluates the set: value, logs, receipt order; module state as its evaluation left it, in every run', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const run = request('import { count, seen } from "@t/count"; return [count(), seen, globalThis.evaluations, typeof limit];', countSet, countEntries, {
      inputs: { limit: 7 },
    });
    const first = await bothWays(supply, run);
    expect(first.usedImage).toBe(true);
    // No module sees the run's inputs at its initialisation, in either path; the node's code does.
    expect(first.plain).toMatchObject({ ok: true, value: [3, 'no input', 1, 'number'], logs: [{ level: 'log', text: 'count evaluated' }] });
    expect(first.plain.receipt.modules.map((m) => m.moduleId)).toEqual(['m_count', 'm_twice']);
    expect(comparable(first.imaged)).toEqual(comparable(first.plain));
    // Again on the image: the module state the last run changed (state.push) is as the evaluation left it.
    const again = await bothWays(supply, run);
    expect(comparable(again.imaged)).toEqual(comparable(first.plain));
    expect(supply.images.count).toBe(1);

    // Importing only the second entry: another set (another image); it reaches the shared helper first.
    const second = request('import { four } from "@t/count/other"; return four;', countSet, countEntries);
    const other = await bothWays(supply, second);
    expect(other.usedImage).toBe(true);
    expect(other.plain.receipt.modules.map((m) => m.moduleId)).toEqual(['m_other', 'm_twice', 'm_extra']);
    expect(comparable(other.imaged)).toEqual(comparable(other.plain));
    expect(supply.images.count).toBe(2);
  }, 60_000);

  it('answers errors alike, with the same positions: a throw in a pack function, a throw in the node code, a syntax error', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    for (const code of [
      'import { twice, fails } from "@t/count";\nconst n = twice(2);\nfails();\nreturn n;',
      'import { twice } from "@t/count";\nconst x = null;\nreturn x.y + twice(1);',
      'import { twice } from "@t/count";\nreturn twice(;',
    ]) {
      const run = request(code, countSet, { '@t/count': 'm_twice' });
      const { plain, imaged } = await bothWays(supply, run);
      expect(plain.ok).toBe(false);
      expect(comparable(imaged)).toEqual(comparable(plain));
    }
  }, 60_000);

  it('never images a set whose initialisation needs a capability, throws, or is denied an import: its runs evaluate it and answer as before', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const secretAtInit = module('m_cap', '@t/cap', 'export const token = await getSecret("K");\n');
    const throwing = module('m_throw', '@t/bad', 'throw new Error("top level");\nexport const a = 1;\n');
    const denied = module('m_denied', '@t/bad', 'import fs from "node:fs";\nexport const b = fs;\n');
    const cases: [GuestModule, string, Partial<KernelRunRequest>][] = [
      [secretAtInit, 'import { token } from "@t/x"; return token;', { grants: { ...NO_GRANTS, secrets: ['K'] } }],
      [throwing, 'import { a } from "@t/x"; return a;', {}],
      [denied, 'import { b } from "@t/x"; return b;', {}],
    ];
    for (const [m, code, extra] of cases) {
      const run = request(code, [m], { '@t/x': m.moduleId }, extra);
      asked.length = 0;
      const { plain, imaged, usedImage } = await bothWays(supply, run);
      expect(usedImage).toBe(false);
      expect(supply.refusal(keyOf(run))).toEqual(expect.any(String));
      expect(comparable(imaged)).toEqual(comparable(plain));
      // Only the runs reached the host (the plain one, and the one after the refusal), never the image's evaluation.
      if (m === secretAtInit) {
        expect(plain).toMatchObject({ ok: true, value: 'secret-value' });
        expect(asked).toEqual(['getSecret(["K"])', 'getSecret(["K"])']);
      }
    }
    expect(supply.images.count).toBe(0);
  }, 60_000);

  it("gives each run its own Math.random sequence; what a module drew at its initialisation is the image's", async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const drawn = module('m_rand', '@t/rand', 'export const atInit = [Math.random(), Date.now()];\n');
    const run = request('import { atInit } from "@t/rand"; return [atInit, Math.random(), Math.random()];', [drawn], { '@t/rand': 'm_rand' });
    const values: unknown[][] = [];
    for (let i = 0; i < 3; i++) {
      const taken = await supply.take(false, run);
      const result = (await runPrepared(taken.sandbox, run, powers)).result;
      supply.retire(taken);
      if (!result.ok) throw new Error(result.message);
      values.push(result.value as unknown[]);
    }
    // The module's initialisation ran once, when the image was made: every run sees its values.
    expect(new Set(values.map((v) => JSON.stringify(v[0]))).size).toBe(1);
    // The node's draws are the run's own: no two runs share one.
    const draws = values.flatMap((v) => [v[1], v[2]]);
    expect(new Set(draws).size).toBe(draws.length);
  }, 60_000);

  it('never images a set whose initialisation draws crypto random bytes: each run draws its own', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const ids = module(
      'm_ids',
      '@t/ids',
      'const pool = crypto.getRandomValues(new Uint8Array(16));\nexport const atInit = crypto.randomUUID() + ":" + pool.join(",");\n',
    );
    const run = request('import { atInit } from "@t/ids"; return atInit;', [ids], { '@t/ids': 'm_ids' });
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const taken = await supply.take(false, run);
      expect(taken.sandbox.image).toBeUndefined();
      const result = (await runPrepared(taken.sandbox, run, powers)).result;
      supply.retire(taken);
      if (!result.ok) throw new Error(result.message);
      seen.push(result.value);
    }
    expect(new Set(seen).size).toBe(3);
    expect(supply.refusal(keyOf(run))).toMatch(/draws random bytes from crypto/);
  }, 60_000);

  it('gives run B no byte of the secret run A held, on the same image', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const lib = module('m_lib', '@t/lib', 'export const kept = [];\nexport function keep(v) { kept.push(v); return kept.length; }\n');
    const entries = { '@t/lib': 'm_lib' };
    const secret = isolationSecret();
    // Run A keeps the secret in the module's own state and spreads it over the heap, without growing
    // the engine's memory (a run that grows it gets a new sandbox, which would prove nothing here).
    const plant = request(
      'import { keep } from "@t/lib";\nconst held = [];\nfor (let i = 0; i < 500; i++) held.push(keep(apiKey + ":" + i));\nconst bytes = new Uint8Array(1 << 16);\nfor (let i = 0; i < apiKey.length; i++) bytes[i] = apiKey.charCodeAt(i);\nkeep(bytes);\nreturn held.length;',
      [lib],
      entries,
      { inputs: { apiKey: secret } },
    );
    const scan = request(`import { kept } from "@t/lib";\nif (kept.length !== 0) return "kept";\n${SCAN_CODE}`, [lib], entries, {
      inputs: scanInputs(secret),
      timeoutMs: 30_000,
    });
    const plantedOn = await supply.take(false, plant);
    expect(plantedOn.sandbox.image).toBeDefined();
    expect((await runPrepared(plantedOn.sandbox, plant, powers)).result).toMatchObject({ ok: true, value: 500 });
    supply.retire(plantedOn);
    const scannedOn = await supply.take(false, scan);
    // The same module set: the same sandbox, back at its image.
    expect(scannedOn.memory).toBe(plantedOn.memory);
    const scanned = (await runPrepared(scannedOn.sandbox, scan, powers)).result;
    supply.retire(scannedOn);
    expect(scanned).toMatchObject({ ok: true });
    if (!scanned.ok) return;
    const found = Object.entries(scanned.value as Record<string, ScanEntry>);
    expect(found.length).toBeGreaterThanOrEqual(29);
    expect(Object.fromEntries(found)).toEqual(
      Object.fromEntries(found.map(([name]) => [name, { secret: false, dirty: mayBeDirty(name) ? expect.any(Boolean) : false }])),
    );
  }, 120_000);

  it("restores a module-set sandbox to its image byte for byte, past the allocator's heap end too", async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    // The plain sandbox first: its whole-memory image checks the heap end, so the set's image below
    // is taken only up to it (memory-snapshot.ts `takeSnapshot`), and must still come back exactly.
    await supply.prepare();
    const lib = module(
      'm_big',
      '@t/big',
      'export const table = Array.from({ length: 20000 }, (_, i) => ({ i, s: "row " + i }));\nexport function size() { return table.length; }\n',
    );
    const entries = { '@t/big': 'm_big' };
    const plant = request(
      'import { table } from "@t/big";\nfor (let i = 0; i < 2000; i++) table[i].s = apiKey + i;\nglobalThis.leak = apiKey;\nreturn table.length;',
      [lib],
      entries,
      { inputs: { apiKey: isolationSecret() } },
    );
    const first = await supply.take(false, plant);
    expect(first.sandbox.image).toBeDefined();
    const pristine = new Uint8Array(first.memory.buffer.slice(0));
    expect((await runPrepared(first.sandbox, plant, powers)).result).toMatchObject({ ok: true, value: 20000 });
    supply.retire(first);
    const now = new Uint8Array(first.memory.buffer);
    expect(now.length).toBe(pristine.length);
    const differing: number[] = [];
    for (let i = 0; i < now.length; i++) if (now[i] !== pristine[i]) differing.push(i);
    // Byte for byte the image, but for the Math.random state the next take reseeds (one 8-byte word).
    expect(differing.length).toBeLessThanOrEqual(8);
    if (differing.length > 0) expect(Math.floor(differing.at(-1)! / 8)).toBe(Math.floor(differing[0]! / 8));
  }, 60_000);

  it('never serves an image to another caller, for another source under the same id, or for the same modules imported in another order', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const v = (n: number, digest = `v${n}`) => ({ ...module('m_v', '@t/v', `export const version = ${n};\n`), digest: digest.padEnd(64, '0') });
    const read = (m: GuestModule, partition?: string) =>
      request('import { version } from "@t/v"; return version;', [m], { '@t/v': 'm_v' }, partition ? { partition } : {});
    const runAndRead = async (run: KernelRunRequest) => {
      const taken = await supply.take(false, run);
      const result = (await runPrepared(taken.sandbox, run, powers)).result;
      const image = taken.sandbox.image;
      supply.retire(taken);
      return { value: result.ok ? result.value : result.code, image };
    };
    const a1 = await runAndRead(read(v(1), 'a'));
    expect(a1.value).toBe(1);
    // Another caller: its own image, never a's.
    const b1 = await runAndRead(read(v(1), 'b'));
    expect(b1.value).toBe(1);
    expect(b1.image).not.toBe(a1.image);
    expect(supply.images.count).toBe(2);
    // The catalog changed the source (and its digest) under the same id: a new image, never the old one.
    expect((await runAndRead(read(v(2), 'a'))).value).toBe(2);
    // A source changed under the same id and digest (a catalog that lies): the image does not fit; the run evaluates it itself.
    const liar = { ...v(3), digest: v(1).digest };
    const lied = await runAndRead(read(liar, 'a'));
    expect(lied.value).toBe(3);
    expect(lied.image).toBeUndefined();
    // The first image is still there and still answers its own set.
    expect((await runAndRead(read(v(1), 'a'))).image).toBe(a1.image);
    // The evaluation order is part of an image: the same modules imported in another order are another set.
    const both = request('', countSet, countEntries);
    expect(imagePlan(both, ['@t/count', '@t/count/other'], false)!.key).not.toBe(imagePlan(both, ['@t/count/other', '@t/count'], false)!.key);
  }, 60_000);

  it('keeps module-set sandboxes within the memory budget, least recently used first', async () => {
    const supply = new SandboxSupply(compileEngineWasm, { imageBudgetBytes: 40 * 1024 * 1024 });
    const sets = [1, 2, 3, 4].map((n) =>
      request(`import { n } from "@t/s${n}"; return n;`, [module(`m_s${n}`, `@t/s${n}`, `export const n = ${n};\n`)], { [`@t/s${n}`]: `m_s${n}` }),
    );
    for (const run of sets) {
      const taken = await supply.take(false, run);
      expect((await runPrepared(taken.sandbox, run, powers)).result).toMatchObject({ ok: true });
      supply.retire(taken);
      expect(supply.images.bytes).toBeLessThanOrEqual(40 * 1024 * 1024);
    }
    // Two of ~18 MB each fit in 40 MB: the last two used are kept.
    expect(supply.images.count).toBe(2);
    const kept = await supply.take(false, sets[3]!);
    expect(kept.sandbox.image).toBeDefined();
    supply.retire(kept);
  }, 60_000);
});
