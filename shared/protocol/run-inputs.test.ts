// The run-input rules against the real thing: LOCKED_GLOBALS must be exactly the globals a fresh
// guest context cannot rebind (read from the engine after the real prelude, so a prelude change
// that locks or unlocks a global fails here), and binding an input under such a name really is
// lost without a word, which is why the contract refuses it. Depth is measured iteratively.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadQuickJsNg } from '../testing/quickjs-engine.ts';
import { runKernel } from '../sandbox/kernel/kernel.ts';
import { SYSTEM_CLOCK } from '../sandbox/kernel/system-clock.ts';
import { deeperThan, jsonTextDeeperThan } from './json-depth.ts';
import { LIMITS } from './limits.ts';
import { NO_GRANTS, type KernelRunRequest, type RunResult } from './run.ts';
import { LOCKED_GLOBALS, notJsonInput, reservedInputName, runInputProblems } from './run-inputs.ts';

async function run(code: string, inputs: Record<string, unknown> = {}): Promise<RunResult> {
  const request: KernelRunRequest = { code, entries: {}, modules: {}, inputs, grants: NO_GRANTS, timeoutMs: 5000 };
  const outcome = await runKernel(request, {
    engine: await loadQuickJsNg(),
    ...SYSTEM_CLOCK,
    hostCall: async () => ({ ok: false, code: 'internal', message: 'unused' }),
  });
  return outcome.result;
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { k: value };
  return value;
}

describe('LOCKED_GLOBALS', () => {
  it('is exactly the set of globals the guest cannot rebind after the prelude', async () => {
    const result = await run(
      'Object.getOwnPropertyNames(globalThis).filter((n) => { const d = Object.getOwnPropertyDescriptor(globalThis, n); return !d.writable && !d.set; })',
    );
    expect(result.ok).toBe(true);
    expect(new Set(result.ok ? (result.value as string[]) : [])).toEqual(new Set(LOCKED_GLOBALS));
  });

  it('names globals whose input binding is lost without a word (why the contract refuses them)', async () => {
    const inputs = Object.fromEntries(LOCKED_GLOBALS.map((name) => [name, 'from the input']));
    const result = await run(`[${LOCKED_GLOBALS.map((n) => `${n} === "from the input"`).join(', ')}]`, inputs);
    expect(result).toMatchObject({ ok: true, value: LOCKED_GLOBALS.map(() => false) });
  });
});

describe('runInputProblems', () => {
  it('refuses locked and reserved names with a sentence naming the input', () => {
    expect(runInputProblems({ ok: 1, fetch: 2, __sandboxPacksWasmBridge: 3 })).toEqual([
      {
        name: 'fetch',
        message:
          'the input "fetch" has the name of a sandbox global the code cannot rebind (console, fetch, getSecret, workspace, Function, undefined, NaN, Infinity); rename the input',
      },
      {
        name: '__sandboxPacksWasmBridge',
        message: 'the input "__sandboxPacksWasmBridge" starts with "__sandbox", which the sandbox reserves for its own bindings; rename the input',
      },
    ]);
    expect(reservedInputName('fetcher')).toBeUndefined();
  });

  it(`refuses values nested more than ${LIMITS.jsonDepth} levels, at the exact boundary`, () => {
    expect(runInputProblems({ a: nested(LIMITS.jsonDepth), b: 'x' })).toEqual([]);
    expect(runInputProblems({ a: nested(LIMITS.jsonDepth + 1) })).toEqual([
      { name: 'a', message: `the input "a" is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed into the sandbox may have` },
    ]);
    // 100,000 levels: no recursion anywhere, so no stack to run out of.
    expect(runInputProblems({ deep: nested(100_000) })).toHaveLength(1);
  });
});

describe('notJsonInput', () => {
  it('accepts exactly what z.json() accepts (the schema it replaced, which zod could not compile)', () => {
    class Point {
      x = 1;
    }
    const shared = { s: 'x' };
    const values: unknown[] = [
      ...[1, -0, 1.5, 2 ** 60, '', 'x', true, false, null, [], {}, [1, 'a', null, [true]], { a: { b: [1, { c: 'd' }] } }, [shared, shared]],
      ...[Number.NaN, Infinity, -Infinity, undefined, 1n, Symbol('s'), () => 1, new Date(0), new Map(), new Set(), new Uint8Array(2), new Point(), /x/],
      ...[
        [1, , 3],
        [undefined],
        { a: undefined },
        { a: [1, Number.NaN] },
        { [Symbol('k')]: 1 },
        Object.create(null) as unknown,
        Object.assign(Object.create(null) as object, { a: 1 }),
      ],
      JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as unknown,
      Object.defineProperty({ a: 1 }, 'hidden', { value: Number.NaN, enumerable: false }),
      Object.defineProperty({ a: 1 }, '__proto__', { value: Number.NaN, enumerable: true }),
      Object.defineProperty({ a: 1 }, 'constructor', { value: class {}, enumerable: false }),
      { constructor: 1 },
      Object.create(Object.create({ inherited: Number.NaN }) as object) as unknown,
    ];
    const json = z.json();
    values.forEach((value, i) => expect(notJsonInput('x', value) === undefined, `value ${i}`).toBe(json.safeParse(value).success));
  });

  it('names where a value stops being JSON', () => {
    expect(notJsonInput('x', { rows: [{ a: 1 }, { a: Number.NaN }] })).toBe('the input "x" is not JSON: x.rows[1].a is NaN, a number JSON cannot hold');
    expect(notJsonInput('x', [1, undefined])).toBe('the input "x" is not JSON: x[1] is undefined');
    expect(notJsonInput('x', { when: new Date(0) })).toBe('the input "x" is not JSON: x.when is an object that is neither an array nor a plain object');
    expect(notJsonInput('x', { [Symbol('k')]: 1 })).toBe('the input "x" is not JSON: x has a symbol key');
    expect(notJsonInput('x', { f: () => 1 })).toBe('the input "x" is not JSON: x.f is a function');
  });
});

describe('depth measures', () => {
  it('count [] and {} as one level and scalars as none; bytes are leaves', () => {
    expect(deeperThan(1, 0)).toBe(false);
    expect(deeperThan([], 0)).toBe(true);
    expect(deeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(deeperThan({ a: [1, { b: 2 }] }, 2)).toBe(true);
    expect(deeperThan([new Uint8Array(10)], 1)).toBe(false);
  });

  it('treat a cycle as too deep and stay bounded on shared references', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(deeperThan(cycle, LIMITS.jsonDepth)).toBe(true);
    // 300 levels of [x, x]: 2^300 paths, 300 nodes.
    let shared: unknown = 1;
    for (let i = 0; i < 300; i++) shared = [shared, shared];
    expect(deeperThan(shared, LIMITS.jsonDepth)).toBe(true);
    expect(deeperThan(shared, 300)).toBe(false);
  });

  it('agree between a value and its JSON text, brackets inside strings not counted', () => {
    for (const value of [1, 'x', [], { a: '[[[{{{' }, nested(10), [[['"\\]"']]], { 'k]"': [{ v: '\\' }] }]) {
      const text = JSON.stringify(value);
      for (let max = 0; max < 12; max++) expect(jsonTextDeeperThan(text, max), `${text} @ ${max}`).toBe(deeperThan(value, max));
    }
  });
});
