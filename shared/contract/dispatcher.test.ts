// The dispatcher on its own: handlers are plain functions here (they are its input), so the test
// can make one throw or answer outside its contract and see that neither reaches the caller as
// anything but a tagged `internal` failure, while the bug is reported.

import { describe, expect, it } from 'vitest';
import { ok } from '../protocol/result.ts';
import { createDispatcher, ContractViolation, requestParser, type Handlers } from './dispatcher.ts';
import { CONTRACT, METHOD_NAMES, type MethodName } from './methods.ts';

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

  it("hands code.run's answer on as its handler made it (checked where its parts came in); other answers are parsed", async () => {
    // The code runner's answer: the worker's result (parsed with the contract's RunResultSchema
    // when it arrived) and the resolved packages built field by field; see ANSWERS_CHECKED_AT_SOURCE.
    const answer = ok({ result: { ok: true, value: 2, logs: [], receipt: { wallMs: 1, modules: [], calls: [], denied: [] } }, resolved: [] });
    const dispatcher = createDispatcher(
      handlersWith({
        'code.run': async () => answer,
        'packs.uninstall': async () => ok({ name: 'a', absolutePath: '/x' }),
      }),
    );
    expect(await dispatcher.handle('code.run', { code: 'return 1 + 1', packages: [] }, { face: 'test' })).toBe(answer);
    expect(await dispatcher.handle('packs.uninstall', { name: 'a' }, { face: 'test' })).toEqual({ ok: true, value: { name: 'a' } });
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
    const cases: [MethodName, unknown][] = [
      // code.run: compiled without its inputs (z.json() is a cycle zod does not compile) when there are none.
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
    for (const [method, payload] of cases) {
      const expected = CONTRACT[method].request.safeParse(payload);
      const got = requestParser(method)(payload);
      expect(got.success, `${method} ${JSON.stringify(payload)?.slice(0, 80)}`).toBe(expected.success);
      if (expected.success) expect(got.data).toStrictEqual(expected.data);
      else expect(got.error?.issues).toEqual(expected.error.issues);
    }
  });
});
