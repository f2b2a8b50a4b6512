// Guest hardening (issue 14) through the in-thread kernel: the fixture file fixtures/kernel/hardening.json
// (which the worker pool and Chromium also run, see fixture-dir.contract.test.ts and
// e2e/parity.e2e.test.ts), then what a fixture cannot see: the receipt's `from` for each attack, console
// output of a pack function, the reserved "sandbox:" module ids, and what code holding the private
// WASM bridge can and cannot do.
import { describe, expect, it } from 'vitest';
import hardening from '../../../fixtures/kernel/hardening.json' with { type: 'json' };
import { NO_GRANTS, type GuestModule, type KernelRunRequest, type RunResult } from '../../protocol/run.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel, UNKNOWN_CALLER } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';
import { FixtureFileSchema, fixtureProblems, type FixtureCase } from '../../testing/kernel-fixture.ts';
import { runFixtureCaseInThread } from '../../testing/kernel-fixture-thread.ts';
import { WASM_BRIDGE_SPECIFIER, WASM_BRIDGE_MODULE_ID } from '../../protocol/wasm-bridge.ts';

const file = FixtureFileSchema.parse(hardening);

async function runCase(testCase: FixtureCase): Promise<RunResult> {
  const outcome = await runFixtureCaseInThread(file, testCase);
  expect(outcome.healthy).toBe(true);
  return outcome.result;
}

function fixtureCase(name: string): FixtureCase {
  const found = file.cases.find((c) => c.name === name);
  if (!found) throw new Error(`no fixture case ${name}`);
  return found;
}

describe('hardening fixtures (in-thread)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}: ${testCase.why}`, async () => {
      expect(fixtureProblems(testCase, await runCase(testCase))).toEqual([]);
    });
  }
});

describe("capability denials name their caller from the engine's frames", () => {
  const denial = (from: string, reason: string) => [{ kind: 'capability', request: 'getSecret("K")', from, code: 'capability-denied', reason }];
  const byPack = 'getSecret("K") called by @h/sneaky was denied: this node was not granted that secret.';

  for (const name of ['forged-prepare', 'zero-stack-limit', 'forged-function-name', 'after-await']) {
    it(`${name}: the receipt names the pack`, async () => {
      const result = await runCase(fixtureCase(`receipt-attribution-${name}`));
      expect(result.receipt.denied).toEqual(denial('@h/sneaky', byPack));
    });
  }

  const unknown = (secret: string) => [
    {
      kind: 'capability',
      request: `getSecret(${JSON.stringify(secret)})`,
      from: UNKNOWN_CALLER,
      code: 'capability-denied',
      reason: `getSecret(${JSON.stringify(secret)}) was denied (the sandbox could not tell which code called it): this node was not granted that secret.`,
    },
  ];

  it("a call with no caller frame, or made by a built-in, is recorded as unknown, never as the node's code", async () => {
    expect((await runCase(fixtureCase('receipt-attribution-unknown'))).receipt.denied).toEqual(unknown('K'));
    expect((await runCase(fixtureCase('receipt-attribution-through-a-built-in'))).receipt.denied).toEqual(unknown('K'));
  });

  // A pack plants a capability where the node's own code calls it: the engine shows no frame of
  // the pack's, so the receipt must not blame the node's code (issue 26 item 7).
  for (const [how, secret] of [
    ['bound-at', 'K'],
    ['bound-null-at', 'K'],
    ['bind-call-at', 'K'],
    ['call-chain-at', 'K'],
    ['method', '0'],
    ['proxy-at', '0'],
    ['getter', 'undefined'],
  ] as const) {
    it(`planted ${how}: the node's own call reaching it is recorded as unknown`, async () => {
      expect((await runCase(fixtureCase(`receipt-attribution-planted-${how}`))).receipt.denied).toEqual(unknown(secret));
    });
  }

  it("planted as Promise.prototype.constructor's getter: every read the node's await makes is recorded as unknown", async () => {
    const result = await runCase(fixtureCase('receipt-attribution-planted-constructor-getter'));
    expect(result).toMatchObject({ ok: true, value: 7 });
    expect(result.receipt.denied.length).toBeGreaterThan(0);
    expect(new Set(result.receipt.denied.map((d) => d.from))).toEqual(new Set([UNKNOWN_CALLER]));
  });

  it("the node's own call names the node's code", async () => {
    const result = await runCase(fixtureCase('receipt-attribution-node-code'));
    expect(result.receipt.denied).toEqual(
      denial("the node's code", 'getSecret("K") called by the node\'s code was denied: this node was not granted that secret.'),
    );
    const method = await runCase(fixtureCase('receipt-attribution-node-method-call'));
    expect(method.receipt.denied.map((d) => d.from)).toEqual(["the node's code"]);
  });

  it('bind stays the engine\'s for every other function: same value, name, length and "native code" text', async () => {
    const result = await runCase({
      name: 'bind-shape',
      why: 'bind is replaced only to see capabilities bound',
      code: 'function add(a, b) { return a + b; }\nconst b = add.bind(null, 2);\nreturn [b(3), b.name, b.length, "prototype" in b, Function.prototype.bind.name, Function.prototype.bind.length, String(Function.prototype.bind), Function.prototype.toString.call(Function.prototype.bind), "prototype" in Function.prototype.bind];',
      timeoutMs: 5000,
      expect: { ok: true, value: null },
    });
    expect(result).toMatchObject({
      ok: true,
      value: [5, 'bound add', 1, false, 'bind', 1, 'function bind() {\n    [native code]\n}', 'function bind() {\n    [native code]\n}', false],
    });
  });
});

const engineRun = async (request: Partial<KernelRunRequest> & { code: string }, hostCall?: Parameters<typeof runKernel>[1]['hostCall']): Promise<RunResult> => {
  const engine = await loadQuickJsNg();
  const outcome = await runKernel(
    { entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 5000, ...request },
    { engine, ...SYSTEM_CLOCK, hostCall: hostCall ?? (async () => ({ ok: false, code: 'internal', message: 'no host in this test' })) },
  );
  expect(outcome.healthy).toBe(true);
  return outcome.result;
};

const jsModule = (moduleId: string, source: string, kind: 'js' | 'wasm' = 'js', imports: Record<string, string> = {}): GuestModule => ({
  moduleId,
  kind,
  packName: `@t/${moduleId}`,
  packVersion: '1.0.0',
  displayName: `@t/${moduleId}`,
  source,
  imports,
  digest: '0'.repeat(64),
});

describe('source text stays hidden outside the result too', () => {
  it('console output of a pack function shows the stand-in', async () => {
    const priv = jsModule('priv', 'export function scale(x) { return x * 42; /* private */ }\n');
    const result = await engineRun({
      code: 'import { scale } from "@t/priv";\nconsole.log(scale, String([scale]));\nreturn 1;',
      entries: { '@t/priv': 'priv' },
      modules: { priv },
    });
    expect(result).toMatchObject({
      ok: true,
      value: 1,
      logs: [{ level: 'log', text: 'function scale() { [sandbox: source hidden] } function scale() { [sandbox: source hidden] }' }],
    });
  });
});

describe('reserved module ids', () => {
  for (const id of ['sandbox:prelude', 'sandbox:bridge', 'sandbox:anything']) {
    it(`refuses a resolution that uses ${id} (its frames would be skipped when naming a caller)`, async () => {
      const result = await engineRun({ code: 'return 1;', entries: { '@t/x': id }, modules: { [id]: jsModule(id, 'export const x = 1;\n') } });
      expect(result).toMatchObject({ ok: false, code: 'invalid-data', message: `The run's resolution uses the reserved module id ${JSON.stringify(id)}.` });
    });
  }
});

describe('the private WASM bridge', () => {
  // A facade that hands the bridge's callWasm out stands for any code that got hold of the binding.
  const holder = jsModule('wasm:holder', `export { callWasm } from ${JSON.stringify(WASM_BRIDGE_SPECIFIER)};\n`, 'wasm', {
    [WASM_BRIDGE_SPECIFIER]: WASM_BRIDGE_MODULE_ID,
  });
  const other = jsModule(
    'wasm:other',
    `import { callWasm } from ${JSON.stringify(WASM_BRIDGE_SPECIFIER)};\nexport async function f(...a) { return await callWasm("wasm:other", "f", a); }\n`,
    'wasm',
    { [WASM_BRIDGE_SPECIFIER]: WASM_BRIDGE_MODULE_ID },
  );
  const grabber = jsModule(
    'grab',
    'export const seen = [typeof globalThis.__sandboxPacksWasmBridge, Object.getOwnPropertyDescriptor(globalThis, "__sandboxPacksWasmBridge") === undefined];\n',
  );
  const modules = { 'wasm:holder': holder, 'wasm:other': other, grab: grabber };
  const entries = { '@t/holder': 'wasm:holder', '@t/other': 'wasm:other', '@t/grab': 'grab' };

  it('is never visible to a pack, even one that evaluates before every facade', async () => {
    const result = await engineRun({ code: 'import { seen } from "@t/grab";\nimport { f } from "@t/other";\nreturn seen;', entries, modules });
    expect(result).toMatchObject({ ok: true, value: ['undefined', true] });
  });

  it("held anyway, reaches only the run's declared WASM modules, and its receipts name no caller", async () => {
    const asked: unknown[] = [];
    const code = [
      'import { callWasm } from "@t/holder";',
      'const out = [];',
      'for (const [m, e, a] of [["wasm:elsewhere", "f", [1]], ["grab", "f", [1]], ["sandbox:wasm-bridge", "f", []], ["wasm:other", "f", [1, 2]], ["wasm:other", "g", ["x", {}]]]) {',
      '  try { out.push(await callWasm(m, e, a)); } catch (err) { out.push([err.code, err.message]); }',
      '}',
      'return out;',
    ].join('\n');
    const result = await engineRun({ code, entries, modules }, async (kind, name, args) => {
      asked.push([kind, name, args]);
      return { ok: true, value: 7 };
    });
    expect(result).toMatchObject({
      ok: true,
      value: [
        ['wasm-not-declared', 'WASM module "wasm:elsewhere" is not part of this run\'s declared packages.'],
        ['wasm-not-declared', 'WASM module "grab" is not part of this run\'s declared packages.'],
        ['wasm-not-declared', 'WASM module "sandbox:wasm-bridge" is not part of this run\'s declared packages.'],
        7,
        7,
      ],
    });
    // The host (the dispatcher, which checks the export and the arguments) sees only declared modules.
    expect(asked).toEqual([
      ['wasm', 'wasm:other', ['f', [1, 2]]],
      ['wasm', 'wasm:other', ['g', ['x', {}]]],
    ]);
    expect(result.receipt.calls).toEqual([
      { kind: 'wasm', name: 'wasm:elsewhere', ok: false, code: 'wasm-not-declared' },
      { kind: 'wasm', name: 'grab', ok: false, code: 'wasm-not-declared' },
      { kind: 'wasm', name: 'sandbox:wasm-bridge', ok: false, code: 'wasm-not-declared' },
      { kind: 'wasm', name: '@t/wasm:other#f', ok: true },
      { kind: 'wasm', name: '@t/wasm:other#g', ok: true },
    ]);
    expect(result.receipt.denied).toEqual([]);
  });
});
