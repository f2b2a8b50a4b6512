// The dispatcher on its own: handlers are plain functions here (they are its input), so the test
// can make one throw or answer outside its contract and see that neither reaches the caller as
// anything but a tagged `internal` failure, while the bug is reported.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ok } from '../protocol/result.ts';
import { createDispatcher, ContractViolation, requestParser, type Handlers } from './dispatcher.ts';
import { CONTRACT, METHOD_NAMES, responseSchemaOf, type MethodName } from './methods.ts';

function handlersWith(overrides: Partial<Record<string, (request: unknown) => Promise<unknown>>>): Handlers {
  const all: Record<string, (request: unknown) => Promise<unknown>> = {};
  for (const name of METHOD_NAMES) all[name] = async () => ok({});
  return { ...all, ...overrides } as unknown as Handlers;
}

describe('createDispatcher', () => {
  it('passes the parsed request (unknown keys refused, strings trimmed by the schema) to the handler', async () => {
    const seen: unknown[] = [];
    const dispatcher = createDispatcher(
      handlersWith({
        'packs.install': async (request) => {
          seen.push(request);
          return ok({
            name: 'a',
            version: '1.0.0',
            installMode: 'sandbox-only',
            status: 'active',
            sourceLabel: 'registry',
            integrity: 'sha512-x',
            scripts: [],
            trusted: false,
            installedAt: 'now',
          });
        },
      }),
    );
    const result = await dispatcher.handle('packs.install', { spec: '  a@1  ' }, { face: 'test' });
    expect(result.ok).toBe(true);
    expect(seen).toEqual([{ spec: 'a@1' }]);
  });

  it('answers `internal` when a handler throws, and reports the bug', async () => {
    const bugs: [string, unknown][] = [];
    const dispatcher = createDispatcher(handlersWith({ 'settings.get': async () => Promise.reject(new Error('disk on fire')) }), {
      onBug: (m, e) => bugs.push([m, e]),
    });
    expect(await dispatcher.handle('settings.get', {}, { face: 'test' })).toEqual({
      ok: false,
      code: 'internal',
      message: 'settings.get failed inside the app; the details are in its log.',
    });
    expect(bugs).toHaveLength(1);
    expect((bugs[0]![1] as Error).message).toBe('disk on fire');
  });

  it('answers `internal` when a handler answers outside its contract (e.g. a path or an unknown code)', async () => {
    const bugs: unknown[] = [];
    const dispatcher = createDispatcher(
      handlersWith({
        'settings.get': async () => ok({ registry: 'file:///etc/passwd', sessionAllowlist: [] }),
        'settings.setRegistry': async () => ({ ok: false, code: 'made-up', message: 'x' }),
      }),
      { onBug: (_m, e) => bugs.push(e) },
    );
    expect((await dispatcher.handle('settings.get', {}, { face: 'test' })).ok).toBe(false);
    expect(await dispatcher.handle('settings.setRegistry', { registry: 'https://r.example/' }, { face: 'test' })).toEqual({
      ok: false,
      code: 'internal',
      message: 'settings.setRegistry failed inside the app; the details are in its log.',
    });
    expect(bugs.map((b) => (b as Error).name)).toEqual(['ContractViolation', 'ContractViolation']);
    expect(bugs[0]).toBeInstanceOf(ContractViolation);
  });

  it('strips keys a handler adds beyond the contract before the answer leaves', async () => {
    const dispatcher = createDispatcher(handlersWith({ 'packs.uninstall': async () => ok({ name: 'a', absolutePath: '/home/me/.local/share/x' }) }));
    expect(await dispatcher.handle('packs.uninstall', { name: 'a' }, { face: 'test' })).toEqual({ ok: true, value: { name: 'a' } });
  });

  it("parses code.run's answer like every other: keys beyond the contract are dropped, a result outside its strict schema is a bug", async () => {
    const result = { ok: true, value: 2, logs: [], receipt: { wallMs: 1, modules: [], calls: [], denied: [] } };
    const bugs: unknown[] = [];
    const answers = [ok({ result, resolved: [], absolutePath: '/x' }), ok({ result: { ...result, extra: 1 }, resolved: [] })];
    const dispatcher = createDispatcher(handlersWith({ 'code.run': async () => answers.shift() }), { onBug: (_m, e) => bugs.push(e) });
    const run = () => dispatcher.handle('code.run', { code: 'return 1 + 1', packages: [] }, { face: 'test' });
    expect(await run()).toEqual(ok({ result, resolved: [] }));
    expect(await run()).toMatchObject({ ok: false, code: 'internal' });
    expect(bugs).toHaveLength(1);
  });

  it('names a non-string method by its type and cuts long names', async () => {
    const dispatcher = createDispatcher(handlersWith({}));
    expect(await dispatcher.handle(42, {}, { face: 'test' })).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'method: there is no service method number',
    });
    const long = 'x'.repeat(500);
    expect(await dispatcher.handle(long, {}, { face: 'test' })).toEqual({
      ok: false,
      code: 'invalid-request',
      message: `method: there is no service method "${'x'.repeat(64)}"`,
    });
  });

  it("parses each request with zod's compiled parser: the same data and the same issues as the contract's schema", () => {
    const workflow = { version: 1, nodes: [{ id: 'a', type: 'code', code: 'return 1;', packages: [{ specifier: '@acme/geo' }] }], edges: [] };
    const deep = (depth: number): unknown => (depth === 0 ? 1 : { k: [deep(depth - 1)] });
    const cases: [MethodName, unknown][] = [
      // code.run with and without inputs: its inputs are JSON values under identifier names.
      ['code.run', { code: 'return x', packages: [], inputs: { x: 1, rows: [{ a: 1, b: 'two', c: [true, null, -0.5] }] } }],
      ['code.run', { code: 'return x', packages: [], inputs: { x: deep(128) } }],
      ['code.run', { code: 'return x', packages: [], inputs: { x: deep(129) } }],
      ['code.run', { code: 'return x', packages: [], inputs: JSON.parse('{"x": {"__proto__": {"y": 1}, "z": 2}, "__proto__": 3}') as unknown }],
      ...[
        Number.NaN,
        Infinity,
        undefined,
        1n,
        () => 1,
        new Date(0),
        new Map(),
        new Uint8Array(2),
        [1, , 3],
        { [Symbol('s')]: 1 },
        { a: { b: [Number.NaN] } },
      ].map((x): [MethodName, unknown] => ['code.run', { code: 'return x', packages: [], inputs: { x } }]),
      ['code.run', { code: 'return x', packages: [], inputs: { 'a-b': 1, fetch: 2 } }],
      ['code.run', { code: 'return x', packages: [], inputs: [] }],
      ['code.run', { code: 'return 1 + 1', packages: [] }],
      ['code.run', { code: 'return x', packages: [{ specifier: '@acme/geo', version: '1.0.0' }], timeoutMs: 500, runId: 'r-1', fetchHosts: ['*.example.com'] }],
      ['code.run', { code: 'return x', packages: [], inputs: { x: 1, y: { z: [1, 'a', null] } } }],
      ['code.run', { code: 'return x', packages: [], inputs: undefined }],
      ['code.run', { code: 'return x', packages: [], inputs: { fetch: 1 } }],
      ['code.run', Object.assign(Object.create({ inputs: { x: 1 } }) as object, { code: 'return x', packages: [] })],
      ['code.run', Object.assign(Object.create({ extra: 1 }) as object, { code: 'return x', packages: [] })],
      ['code.run', { code: 1, packages: [], extra: true }],
      ['code.run', { code: 'x', packages: [{ specifier: '' }], timeoutMs: 1.5, runId: '../x', fetchHosts: ['127.0.0.1:80'] }],
      ['code.run', { code: 'x'.repeat(2_000_000), packages: [] }],
      ['code.run', null],
      ['code.run', []],
      ['code.run', 'return 1'],
      ['packs.install', { spec: '  a@1  ' }],
      ['packs.install', { spec: '' }],
      ['settings.setRegistry', { registry: 'https://r.example/' }],
      ['settings.setRegistry', { registry: 'file:///etc/passwd' }],
      ['settings.get', {}],
      ['settings.get', { x: 1 }],
      ['code.validate', { workflow }],
      ['code.validate', { workflow: { ...workflow, version: 2 } }],
      ['workflows.save', { name: '../etc', workflow }],
      ['code.cancel', { runId: 'r-1' }],
    ];
    for (const entry of cases) {
      const [method, payload] = entry;
      const expected = CONTRACT[method].request.safeParse(payload);
      const got = requestParser(method)(payload);
      expect(got.success, `${method} case ${cases.indexOf(entry)}`).toBe(expected.success);
      if (expected.success) expect(got.data).toStrictEqual(expected.data);
      else expect(got.error?.issues).toEqual(expected.error.issues);
    }
  });

  it("compiles every method's request and answer schema (a reference cycle in one would quietly cost the fast path)", () => {
    for (const method of METHOD_NAMES) {
      expect(() => z.compile(CONTRACT[method].request, { strict: true }), `${method} request`).not.toThrow();
      expect(() => z.compile(responseSchemaOf(method), { strict: true }), `${method} answer`).not.toThrow();
    }
  });
});
