// 1,000 invocations through the in-thread kernel must leave nothing behind: every run's runtime
// frees cleanly (quickjs-ng asserts on leaked objects when a runtime is freed, which the kernel
// reports as an unhealthy engine), and the engine's linear memory stops growing after warm-up.
import { describe, expect, it } from 'vitest';
import wasmBytes from '../../../fixtures/kernel/wasm-bytes.json' with { type: 'json' };
import { FixtureFileSchema, fixtureRequest } from '../../testing/kernel-fixture.ts';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { newBoundedQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const request: KernelRunRequest = {
  code: 'import { twice } from "@acme/math";\nconst secret = await getSecret("K").catch((e) => e.code);\nlet failed;\ntry { null.x; } catch (e) { failed = e.name; }\nconsole.log("run", secret);\n({ v: twice(input), secret, failed, bytes: new Uint8Array(16) })',
  entries: { '@acme/math': 'js:math' },
  modules: {
    'js:math': {
      moduleId: 'js:math',
      kind: 'js',
      packName: '@acme/math',
      packVersion: '1.0.0',
      displayName: '@acme/math',
      source: 'export const twice = (x) => x * 2;\n',
      imports: {},
      digest: 'b'.repeat(64),
    },
  },
  inputs: { input: 21 },
  grants: NO_GRANTS,
  timeoutMs: 5000,
};

describe('kernel resource hygiene', () => {
  it('runs 1,000 invocations with clean runtime teardown and flat engine memory', async () => {
    const { engine, memory } = await newBoundedQuickJsNg();
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: true as const, value: null }) };
    let unhealthy = 0;
    let sizeAfterWarmup = 0;
    for (let i = 0; i < 1000; i++) {
      const outcome = await runKernel(request, powers);
      if (!outcome.healthy) unhealthy++;
      if (i === 0)
        expect(outcome.result).toMatchObject({
          ok: true,
          value: { v: 42, secret: 'capability-denied', failed: 'TypeError', bytes: { __sandboxBytes: 'AAAAAAAAAAAAAAAAAAAAAA==' } },
          logs: [{ level: 'log', text: 'run capability-denied' }],
        });
      if (i === 50) sizeAfterWarmup = memory.buffer.byteLength;
    }
    expect(unhealthy).toBe(0);
    expect(memory.buffer.byteLength).toBe(sizeAfterWarmup);
  }, 120_000);

  it('frees every isolated context and copy: 300 isolated runs, and isolated runs that fail in every way, leave the engine healthy and flat', async () => {
    const { engine, memory } = await newBoundedQuickJsNg();
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: true as const, value: 'k' }) };
    const pack = {
      moduleId: 'js:iso',
      kind: 'js' as const,
      packName: '@acme/iso',
      packVersion: '1.0.0',
      displayName: '@acme/iso',
      source:
        'export const up = (s) => s.toUpperCase();\nexport const later = async (x) => { await null; return { x, at: new Date(0), m: new Map([[1, [x]]]) }; };\n' +
        'export const spin = () => { for (;;) {} };\nexport const bomb = () => { const k = []; for (;;) k.push(new Uint8Array(1 << 20)); };\n' +
        'export const never = () => new Promise(() => {});\nexport const bad = () => { throw new RangeError("no"); };\nexport const fn = () => () => 1;\nexport const api = { twice: (x) => x * 2, re: /x/ };\n',
      imports: {},
      digest: 'c'.repeat(64),
    };
    const isolated = (code: string, timeoutMs = 5000): KernelRunRequest => ({
      code,
      entries: { '@acme/iso': 'js:iso' },
      modules: { 'js:iso': pack },
      inputs: {},
      grants: { ...NO_GRANTS, secrets: ['K'] },
      timeoutMs,
      isolated: ['@acme/iso'],
    });
    const ordinary = isolated('import { up, later, api } from "@acme/iso";\nconst l = await later(up("a"));\nreturn [l.x, l.m.get(1)[0], api.twice(3)];');
    let unhealthy = 0;
    let sizeAfterWarmup = 0;
    for (let i = 0; i < 300; i++) {
      const outcome = await runKernel(ordinary, powers);
      if (!outcome.healthy) unhealthy++;
      if (i === 0) expect(outcome.result).toMatchObject({ ok: true, value: ['A', 'A', 6] });
      if (i === 30) sizeAfterWarmup = memory.buffer.byteLength;
    }
    expect(unhealthy).toBe(0);
    expect(memory.buffer.byteLength).toBe(sizeAfterWarmup);
    const failing: [string, string][] = [
      ['import { spin } from "@acme/iso"; spin();', 'timeout'],
      ['import { bomb } from "@acme/iso"; bomb();', 'memory-limit'],
      ['import { never } from "@acme/iso"; await never();', 'runtime-error'],
      ['import { bad } from "@acme/iso"; bad();', 'runtime-error'],
      ['import { fn } from "@acme/iso"; fn();', 'runtime-error'],
      ['import { api } from "@acme/iso"; api.re.test("x");', 'runtime-error'],
      ['import { up } from "@acme/iso"; up({ f() {} });', 'runtime-error'],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [code, expected] of failing) {
        const outcome = await runKernel(isolated(code, 200), powers);
        expect(outcome.result).toMatchObject({ ok: false, code: expected });
        expect(outcome.healthy).toBe(true);
      }
    }
    const after = await runKernel(ordinary, powers);
    expect(after.result).toMatchObject({ ok: true, value: ['A', 'A', 6] });
  }, 120_000);

  it('keeps the engine usable and flat after runs that fail in every way', async () => {
    const { engine, memory } = await newBoundedQuickJsNg();
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: () => new Promise<never>(() => undefined) };
    const failing = [
      'while (true) {}',
      'const k = []; while (true) k.push(new Uint8Array(1 << 20));',
      'await getSecret("X")',
      'throw new Error("x")',
      'import x from "node:fs";',
      'syntax error here',
    ];
    let sizeAfterFirstRound = 0;
    for (let round = 0; round < 5; round++) {
      for (const code of failing) {
        const outcome = await runKernel({ ...request, code, grants: { ...NO_GRANTS, secrets: ['X'] }, timeoutMs: 50 }, powers);
        expect(outcome.result.ok).toBe(false);
        expect(outcome.healthy).toBe(true);
      }
      if (round === 0) sizeAfterFirstRound = memory.buffer.byteLength;
    }
    expect(memory.buffer.byteLength).toBe(sizeAfterFirstRound);
    const after = await runKernel(
      { ...request, grants: { ...NO_GRANTS, secrets: ['K'] } },
      { ...powers, hostCall: async () => ({ ok: true as const, value: 'k' }) },
    );
    expect(after.result).toMatchObject({ ok: true, value: { v: 42, secret: 'k', failed: 'TypeError' } });
  }, 120_000);

  it('frees every handle of the byte and string WASM path: 400 runs of bytes and strings both ways, refusals and failures, stay healthy and flat', async () => {
    // The host side of the calls is scripted here (the dispatcher's answers, as the kernel receives
    // them); the real dispatcher and lanes run the same calls in fixtures/kernel/wasm-bytes.json.
    const { engine, memory } = await newBoundedQuickJsNg();
    const file = FixtureFileSchema.parse(wasmBytes);
    const hostCall = async (kind: string, _name: string, args: readonly unknown[]) => {
      if (kind !== 'wasm') return { ok: true as const, value: null };
      const [exportName, values] = args as [string, unknown[]];
      const [first] = values;
      if (exportName === 'echo')
        return first instanceof Uint8Array
          ? { ok: true as const, value: first.slice() }
          : { ok: false as const, code: 'wasm-argument' as const, message: 'not bytes' };
      if (exportName === 'upper')
        return typeof first === 'string'
          ? { ok: true as const, value: first.toUpperCase() }
          : { ok: false as const, code: 'wasm-argument' as const, message: 'not a string' };
      return { ok: false as const, code: 'wasm-trap' as const, message: 'trapped' };
    };
    const code = [
      'import { echo, upper, hello } from "@fx/bytes";',
      'const a = await echo(new Uint8Array([1, 2, 3]));',
      'const b = await echo(new Uint8Array(64 * 1024).subarray(1, 4000));',
      'const c = await upper("héllo");',
      'const d = await echo(new Uint16Array(2)).catch((e) => e.code);',
      'const e = await hello().catch((e) => e.code);',
      'const f = await echo(new Uint8Array(0));',
      'return [Array.from(a), b.length, c, d, e, f.length];',
    ].join('\n');
    const run = { ...fixtureRequest(file, file.cases[0]!), code };
    let sizeAfterWarmup = 0;
    for (let i = 0; i < 400; i++) {
      const outcome = await runKernel(run, { engine, ...SYSTEM_CLOCK, hostCall });
      expect(outcome.healthy).toBe(true);
      if (i === 0) expect(outcome.result).toMatchObject({ ok: true, value: [[1, 2, 3], 3999, 'HÉLLO', 'wasm-argument', 'wasm-trap', 0] });
      if (i === 50) sizeAfterWarmup = memory.buffer.byteLength;
    }
    expect(memory.buffer.byteLength).toBe(sizeAfterWarmup);
  }, 120_000);
});
