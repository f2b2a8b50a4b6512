// Can a pack spy on the node's own capability calls? A pack's top level runs before the node's
// code and may patch any prototype or global it can reach. Each case below is one such patch
// (a getter on Object.prototype for a tag the bridge reads, a replaced Promise.prototype.then, an
// Array index setter, a TypedArray length getter...) in a pack the node imports, followed by the
// same node program: getSecret, fetch with a secret header and body, every Response method, every
// workspace operation, a denied call. The host is scripted, so secret values really come back.
// The pack records whatever its hooks are handed; the node must get exactly the host's answers,
// the host exactly the node's arguments, and the pack must have seen nothing.
import { describe, expect, it } from 'vitest';
import type { GuestModule, HostCallResult, KernelRunRequest, RunResult } from '../../protocol/run.ts';
import hardening from '../../../fixtures/kernel/hardening.json' with { type: 'json' };
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { FixtureFileSchema } from '../../testing/kernel-fixture.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';
import { ALL_ATTACKS, ATTACKS, EXPECTED_ASKED, EXPECTED_VALUE, NODE_CODE, SPY_HOST_ANSWERS, spySource } from '../../testing/prelude-spying.attacks.ts';

const asText = (value: unknown): unknown => (value instanceof Uint8Array ? `bytes:${String.fromCharCode(...value)}` : value);

/** The scripted host: secret-bearing answers, and a record of what the node's calls carried. */
function scriptedHost(asked: unknown[]): (kind: string, name: string, args: readonly unknown[]) => Promise<HostCallResult> {
  return async (_kind, name, args) => {
    asked.push([name, JSON.parse(JSON.stringify(args, (_k, v: unknown) => asText(v))) as unknown]);
    return Object.hasOwn(SPY_HOST_ANSWERS, name)
      ? { ok: true, value: SPY_HOST_ANSWERS[name] }
      : { ok: false, code: 'internal', message: `no answer for ${name}` };
  };
}

const spyModule = (patches: string): GuestModule => ({
  moduleId: 'js:spy',
  kind: 'js',
  packName: '@h/spy',
  packVersion: '1.0.0',
  displayName: '@h/spy',
  source: spySource(patches),
  imports: {},
  digest: '0'.repeat(64),
});

async function spiedRun(patches: string): Promise<{ result: RunResult; asked: unknown[] }> {
  const engine = await loadQuickJsNg();
  const asked: unknown[] = [];
  const request: KernelRunRequest = {
    code: NODE_CODE,
    entries: { '@h/spy': 'js:spy' },
    modules: { 'js:spy': spyModule(patches) },
    inputs: {},
    grants: { fetch: true, workspace: true, secrets: ['K'] },
    timeoutMs: 5000,
  };
  const outcome = await runKernel(request, { engine, ...SYSTEM_CLOCK, hostCall: scriptedHost(asked) });
  expect(outcome.healthy).toBe(true);
  return { result: outcome.result, asked };
}

describe("a pack that patches the shared world cannot spy on the node's capability calls", () => {
  it("with no patch, the node program gets the host's answers and the host the node's arguments", async () => {
    const { result, asked } = await spiedRun('');
    expect(result).toMatchObject({ ok: true, value: EXPECTED_VALUE });
    expect(asked).toEqual(EXPECTED_ASKED);
  });

  for (const [attack, patches] of Object.entries(ATTACKS)) {
    it(attack, async () => {
      const { result, asked } = await spiedRun(patches);
      expect(result).toMatchObject({ ok: true, value: EXPECTED_VALUE });
      expect(asked).toEqual(EXPECTED_ASKED);
    });
  }

  it('all of them at once', async () => {
    const { result, asked } = await spiedRun(ALL_ATTACKS);
    expect(result).toMatchObject({ ok: true, value: EXPECTED_VALUE });
    expect(asked).toEqual(EXPECTED_ASKED);
  });

  it('the hardening fixture holds this same pack, program and answers (so the worker pool and Chromium run it too)', () => {
    const file = FixtureFileSchema.parse(hardening);
    const testCase = file.cases.find((c) => c.name === 'pack-cannot-spy-on-capability-calls');
    expect(file.modules['js:spy']?.source).toBe(spySource(ALL_ATTACKS));
    expect(testCase).toMatchObject({ code: NODE_CODE, hostAnswers: SPY_HOST_ANSWERS, expect: { ok: true, value: EXPECTED_VALUE } });
  });
});

describe("the bridge's own encoding of the node's arguments (it no longer uses JSON.stringify)", () => {
  const run = async (code: string): Promise<{ result: RunResult; asked: unknown[] }> => {
    const engine = await loadQuickJsNg();
    const asked: unknown[] = [];
    const request: KernelRunRequest = { code, entries: {}, modules: {}, inputs: {}, grants: { fetch: true, workspace: true, secrets: [] }, timeoutMs: 5000 };
    const outcome = await runKernel(request, { engine, ...SYSTEM_CLOCK, hostCall: scriptedHost(asked) });
    expect(outcome.healthy).toBe(true);
    return { result: outcome.result, asked };
  };

  it("sends the exact bytes of a DataView, an ArrayBuffer and an offset typed array, and JSON's view of plain data", async () => {
    const code = [
      'const f = new Float64Array([1, 2, 3]), u = new Uint8Array(f.buffer, 8, 8), ab = new Uint8Array([104, 105]).buffer, dv = new DataView(new Uint8Array([0, 111, 107, 0]).buffer, 1, 2);',
      'await workspace.writeBytes("a", dv); await workspace.writeBytes("b", ab); await workspace.writeBytes("c", new Uint8Array(u));',
      'await fetch("https://api.test/z", { method: "POST", headers: { n: [1, -0, NaN, Infinity, null, undefined, true, , "s"], skip: undefined, f() {}, [Symbol("k")]: 1 }, body: u });',
      'return 1;',
    ].join('\n');
    const { result, asked } = await run(code);
    expect(result).toMatchObject({ ok: true, value: 1 });
    const two = String.fromCharCode(...new Uint8Array(new Float64Array([2]).buffer));
    expect(asked).toEqual([
      ['workspace.write', ['a', 'bytes:ok']],
      ['workspace.write', ['b', 'bytes:hi']],
      ['workspace.write', ['c', `bytes:${two}`]],
      // The host revives -0, NaN and Infinity from their tags; JSON.parse(JSON.stringify()) in this test's record turns them to 0 and null.
      ['fetch', ['https://api.test/z', { method: 'POST', headers: { n: [1, 0, null, null, null, null, true, null, 's'] }, body: `bytes:${two}` }]],
    ]);
  });

  for (const [what, value] of [
    ['refers to itself', 'const v = {}; v.self = v;'],
    ['is nested deeper than the limit', 'let v = 1; for (let i = 0; i < 300; i++) v = [v];'],
  ] as const) {
    it(`refuses an argument that ${what}, before the host sees it`, async () => {
      const { result, asked } = await run(`${value}\ntry { await fetch("https://api.test/", { headers: { v } }); } catch (e) { return [e.name, e.message]; }`);
      expect(result).toMatchObject({ ok: true, value: ['TypeError', 'A value passed to the host is nested more than 256 levels deep (or refers to itself).'] });
      expect(asked).toEqual([]);
    });
  }

  it('refuses a BigInt argument as JSON.stringify did, with a TypeError', async () => {
    const { result, asked } = await run('try { await fetch("https://api.test/", { headers: { v: 1n } }); } catch (e) { return [e.name, e.message]; }');
    expect(result).toMatchObject({ ok: true, value: ['TypeError', 'A BigInt cannot be passed to the host.'] });
    expect(asked).toEqual([]);
  });
});
