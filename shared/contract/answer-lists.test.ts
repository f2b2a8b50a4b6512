// List answers are total (issue 26 item 3): a handler that answers a list with one row outside the
// contract gets the rest of its list through the dispatcher — the bad row stood in for or left out,
// the violation reported — where the whole answer used to become `internal` for every face.
// Handlers are plain functions here (the dispatcher's input); the faces' own tests run the real ones.

import { describe, expect, it } from 'vitest';
import { ok } from '../protocol/result.ts';
import { LIMITS } from '../protocol/limits.ts';
import { createDispatcher, type ContractViolation, type Handlers } from './dispatcher.ts';
import { METHOD_NAMES } from './methods.ts';

function handlersWith(overrides: Partial<Record<string, () => Promise<unknown>>>): Handlers {
  const all: Record<string, () => Promise<unknown>> = {};
  for (const name of METHOD_NAMES) all[name] = async () => ok({});
  return { ...all, ...overrides } as unknown as Handlers;
}

function dispatcherWith(overrides: Partial<Record<string, () => Promise<unknown>>>) {
  const repaired: string[] = [];
  const bugs: string[] = [];
  const dispatcher = createDispatcher(handlersWith(overrides), {
    onBug: (method, error) => bugs.push(`${method}: ${(error as Error).message}`),
    onRowsRepaired: (method, violation: ContractViolation) => repaired.push(`${method}: ${violation.message}`),
  });
  return { dispatcher, repaired, bugs, call: (method: string, payload: unknown = {}) => dispatcher.handle(method, payload, { face: 'test' }) };
}

const module = (specifier: string, extra: Record<string, unknown> = {}) => ({
  specifier,
  packName: specifier.split('/')[0],
  packVersion: '1.0.0',
  kind: 'js',
  status: 'ready',
  moduleId: 'm_000000000000000000000000',
  digest: 'a'.repeat(64),
  summary: `${specifier} (js)`,
  hasSkill: false,
  ...extra,
});

const BUG = 'This is a bug in the app; its log has the details.';
const tooManyExports = Array.from({ length: LIMITS.exportsPerModule + 1 }, (_, i) => `e${i}`);

describe('catalog.summaries', () => {
  it('answers every sound row; a row past a bound is shown as skipped under its own name, and the violation is reported', async () => {
    const { call, repaired, bugs } = dispatcherWith({
      'catalog.summaries': async () => ok({ modules: [module('a'), module('big', { exports: tooManyExports }), module('c')] }),
    });
    expect(await call('catalog.summaries')).toEqual({
      ok: true,
      value: {
        modules: [
          module('a'),
          {
            specifier: 'big',
            packName: 'big',
            packVersion: '1.0.0',
            kind: 'js',
            status: 'skipped',
            code: 'internal',
            reason: `This module could not be listed as it was discovered, so it is shown as skipped (exports: Too big: expected array to have <=2048 items). ${BUG}`,
            summary: 'big (js)',
            hasSkill: false,
          },
          module('c'),
        ],
      },
    });
    expect(bugs).toEqual([]);
    expect(repaired).toEqual([
      'catalog.summaries: catalog.summaries answered outside its contract: value.modules.1.exports: Too big: expected array to have <=2048 items. Answered without those rows: value.modules.1 was stood in for (exports: Too big: expected array to have <=2048 items)',
    ]);
  });

  it('leaves out a row whose name itself breaks the contract', async () => {
    const { call } = dispatcherWith({ 'catalog.summaries': async () => ok({ modules: [module('a'), module('x'.repeat(301)), { nonsense: true }] }) });
    expect(await call('catalog.summaries')).toEqual({ ok: true, value: { modules: [module('a')] } });
  });
});

describe('catalog.diagnostics', () => {
  const runtime = { npm: '10.0.0', node: '22.0.0', electron: null };
  const pack = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    version: '1.0.0',
    status: 'ok',
    warnings: [],
    modules: [module(name)],
    ...extra,
  });

  it("repairs a pack's own rows first: a bad module stood in for, a long warning shortened, warnings past 256 counted", async () => {
    const warnings = [
      { code: 'skill-missing', message: 'w'.repeat(2500) },
      ...Array.from({ length: 299 }, (_, i) => ({ code: 'js-syntax-error', message: `bad${i}.js` })),
    ];
    const { call, bugs } = dispatcherWith({
      'catalog.diagnostics': async () =>
        ok({
          packs: [pack('a'), pack('b', { warnings, modules: [module('b'), module('b/big', { exports: tooManyExports })] }), pack('c')],
          reconcile: { ok: true, fixed: ['f'.repeat(2001)], missing: [] },
          runtime,
        }),
    });
    const answer = await call('catalog.diagnostics');
    if (!answer.ok) throw new Error(answer.message);
    const value = answer.value as { packs: ReturnType<typeof pack>[]; reconcile: { fixed: string[] } };
    expect(value.packs.map((p) => p.name)).toEqual(['a', 'b', 'c']);
    expect(value.packs[0]).toEqual(pack('a'));
    const b = value.packs[1]!;
    expect(b.status).toBe('ok');
    expect(b.modules.map((m) => [m.specifier, m.status])).toEqual([
      ['b', 'ready'],
      ['b/big', 'skipped'],
    ]);
    expect(b.warnings).toHaveLength(256);
    expect(b.warnings[0]).toEqual({ code: 'skill-missing', message: `${'w'.repeat(1997)}...` });
    expect(b.warnings[254]).toEqual({ code: 'js-syntax-error', message: 'bad253.js' });
    expect(b.warnings[255]).toEqual({ code: 'internal', message: `45 more warnings were left out of this answer. ${BUG}` });
    expect(value.reconcile.fixed).toEqual([`${'f'.repeat(1997)}...`]);
    expect(bugs).toEqual([]);
  });

  it('stands in for a pack whose own fields break the contract, and leaves out one without a sound name', async () => {
    const { call } = dispatcherWith({
      'catalog.diagnostics': async () => ok({ packs: [pack('a', { status: 'broken' }), pack('n'.repeat(215)), pack('c')], reconcile: null, runtime }),
    });
    const answer = await call('catalog.diagnostics');
    if (!answer.ok) throw new Error(answer.message);
    expect((answer.value as { packs: unknown[] }).packs).toEqual([
      {
        name: 'a',
        version: '1.0.0',
        status: 'rejected',
        code: 'internal',
        reason: `This pack could not be listed as it was discovered (status: Invalid option: expected one of "ok"|"rejected"). ${BUG}`,
        warnings: [],
        modules: [module('a')],
      },
      pack('c'),
    ]);
  });

  it('answers `internal` for an answer that is not even an object', async () => {
    const { call, bugs } = dispatcherWith({ 'catalog.diagnostics': async () => undefined, 'catalog.summaries': async () => ok(null) });
    expect((await call('catalog.diagnostics')).ok).toBe(false);
    expect((await call('catalog.summaries')).ok).toBe(false);
    expect(bugs).toHaveLength(2);
  });

  it('still answers `internal` when what breaks the contract is not a row', async () => {
    const { call, bugs, repaired } = dispatcherWith({ 'catalog.diagnostics': async () => ok({ packs: [pack('a')], reconcile: null }) });
    expect(await call('catalog.diagnostics')).toEqual({
      ok: false,
      code: 'internal',
      message: 'catalog.diagnostics failed inside the app; the details are in its log.',
    });
    expect(repaired).toEqual([]);
    expect(bugs).toHaveLength(1);
  });
});

describe('the other list answers', () => {
  it('packs.list leaves out a ledger row it cannot show, and answers the rest', async () => {
    const row = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      version: '1.0.0',
      installMode: 'sandbox-only',
      status: 'active',
      sourceLabel: 'registry',
      integrity: 'sha512-x',
      scripts: [],
      trusted: false,
      installedAt: '2024-01-01T00:00:00.000Z',
      ...extra,
    });
    const { call } = dispatcherWith({ 'packs.list': async () => ok({ packs: [row('a'), row('b', { integrity: 'x'.repeat(513) }), row('c')] }) });
    expect(await call('packs.list')).toEqual({ ok: true, value: { packs: [row('a'), row('c')] } });
  });

  it('packs.updates shows a check it cannot show as one that could not answer', async () => {
    const check = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      installed: '1.0.0',
      source: 'registry',
      state: 'current',
      removedModules: [],
      removedExports: [],
      ...extra,
    });
    const { call } = dispatcherWith({
      'packs.updates': async () =>
        ok({ registry: 'https://r.example/', packs: [check('a'), check('b', { state: 'update', removedModules: ['b/'.padEnd(301, 'x')] })] }),
    });
    const answer = await call('packs.updates');
    expect(answer.ok && (answer.value as { packs: unknown[] }).packs).toEqual([
      check('a'),
      check('b', {
        state: 'unavailable',
        message: `The update check for this pack could not be shown (removedModules.0: Too big: expected string to have <=300 characters). ${BUG}`,
      }),
    ]);
  });

  it('code.validate keeps an error an error when it stands in for an issue it cannot show', async () => {
    const { call } = dispatcherWith({
      'code.validate': async () => ok({ valid: false, issues: [{ nodeId: 'n', severity: 'error', code: 'made-up', message: 'm' }] }),
    });
    expect(await call('code.validate', { workflow: { nodes: [] } })).toEqual({
      ok: true,
      value: {
        valid: false,
        issues: [
          {
            nodeId: 'n',
            severity: 'error',
            code: 'internal',
            message: expect.stringMatching(
              /^An issue with this node could not be shown \(code: Invalid option: expected one of .+\)\. This is a bug in the app/,
            ),
          },
        ],
      },
    });
  });

  it('reports a repaired answer through onBug when no onRowsRepaired is given', async () => {
    const bugs: unknown[] = [];
    const dispatcher = createDispatcher(handlersWith({ 'workflows.list': async () => ok({ names: ['a', '../etc'] }) }), { onBug: (_m, e) => bugs.push(e) });
    expect(await dispatcher.handle('workflows.list', {}, { face: 'test' })).toEqual({ ok: true, value: { names: ['a'] } });
    expect(bugs.map((b) => (b as Error).name)).toEqual(['ContractViolation']);
  });
});
