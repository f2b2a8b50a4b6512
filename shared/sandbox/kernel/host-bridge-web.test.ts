// The two host functions behind the guest's web globals (guest-web.ts), called directly on a
// context that has the bridge and no prelude: the part compiler answers only for the parts that
// exist, and the random source gives strong bytes only while a run is bound and only up to the
// Web Crypto quota, so a module set evaluated ahead of any run cannot carry random values every
// later run would share.
import { Scope } from 'quickjs-emscripten-core';
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { HOST_RANDOM_GLOBAL, HOST_WEB_GLOBAL, RANDOM_BYTES_MAX } from './guest-web.ts';
import { installHostBridge } from './host-bridge.ts';
import { RunState } from './run-state.ts';

const request: KernelRunRequest = { code: '', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 1000 };

async function withBridge(body: (evaluate: (code: string) => unknown, bind: () => void) => void): Promise<void> {
  const engine = await loadQuickJsNg();
  const scope = new Scope();
  try {
    const runtime = scope.manage(engine.newRuntime());
    const ctx = scope.manage(runtime.newContext());
    const bridge = installHostBridge(ctx, false);
    const runScope = scope.manage(new Scope());
    const evaluate = (code: string): unknown => {
      const result = ctx.evalCode(code, 'test.js', { type: 'global', strict: true });
      const value = ctx.dump(result.error ?? result.value) as unknown;
      (result.error ?? result.value).dispose();
      return result.error ? { error: value } : value;
    };
    body(evaluate, () =>
      bridge.bind(
        { request, graph: { entries: {}, modules: {} }, state: new RunState(undefined), hostCall: async () => ({ ok: true, value: null }), now: () => 0 },
        runScope,
      ),
    );
    bridge.unbind();
  } finally {
    scope.dispose();
  }
}

const random = (n: number) =>
  `(() => { const b = globalThis[${JSON.stringify(HOST_RANDOM_GLOBAL)}](${n}); return b === undefined ? "none" : b.byteLength; })()`;

describe('the web globals host functions', () => {
  it('gives random bytes only while a run is bound, and at most the Web Crypto quota a call', async () => {
    await withBridge((evaluate, bind) => {
      expect(evaluate(random(16))).toBe('none');
      bind();
      expect([evaluate(random(0)), evaluate(random(16)), evaluate(random(RANDOM_BYTES_MAX))]).toEqual([0, 16, RANDOM_BYTES_MAX]);
      expect([evaluate(random(RANDOM_BYTES_MAX + 1)), evaluate(random(-1)), evaluate(random(1.5)), evaluate(random(Number.NaN))]).toEqual([
        'none',
        'none',
        'none',
        'none',
      ]);
      const draws = evaluate(
        `(() => { const f = globalThis[${JSON.stringify(HOST_RANDOM_GLOBAL)}], a = new Uint8Array(f(32)), b = new Uint8Array(f(32)); return [a.join(), b.join()]; })()`,
      ) as [string, string];
      expect(draws[0]).not.toBe(draws[1]);
    });
  });

  it('compiles only the parts that exist', async () => {
    await withBridge((evaluate) => {
      const compile = (part: string) =>
        `(() => { try { globalThis[${JSON.stringify(HOST_WEB_GLOBAL)}](${JSON.stringify(part)}, {}, () => ({})); return "compiled"; } catch (e) { return String(e.message); } })()`;
      for (const part of ['nope', '__proto__', 'constructor', 'toString'])
        expect(evaluate(compile(part))).toBe('the guest asked for a web part that does not exist');
    });
  });
});
