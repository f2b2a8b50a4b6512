// The parsers of hot worker messages (zod's compiled form of the schemas, and the WASM reply's
// hand-written fast path) must agree with the zod schemas on every shape: same acceptance, same
// parsed value. Each case is checked against the schema itself.

import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FromWorkerSchema, ToWorkerSchema, parseFromWorker, parseToWorker } from './messages.ts';
import { WasmWorkerReplySchema, parseWasmWorkerReply } from '../../../shared/sandbox/wasm/wasm-worker-reply.ts';

const VALUES: unknown[] = [0, 1, -1, 1.5, Number.NaN, Infinity, -0, 2 ** 53, '1', null, undefined, true, [], {}];

function mismatches(
  parse: (raw: unknown) => unknown,
  schema: { safeParse: (raw: unknown) => { success: boolean; data?: unknown } },
  cases: unknown[],
): unknown[] {
  return cases.filter((raw) => {
    const expected = schema.safeParse(raw);
    return !isDeepStrictEqual(parse(raw), expected.success ? expected.data : undefined);
  });
}

describe('worker message parsers', () => {
  it('parseFromWorker agrees with FromWorkerSchema', () => {
    const cases: unknown[] = [{ type: 'ready' }, { type: 'done' }, null, []];
    for (const runId of VALUES)
      for (const kind of ['wasm', 'capability', 'x'])
        for (const name of ['m', 3])
          for (const args of [[], ['tileX', [1, 2]], 'x', { 0: 1 }]) {
            cases.push({ type: 'host-call', runId, callId: 2, kind, name, args }, { type: 'host-call', runId: 1, callId: runId, kind, name, args, extra: 1 });
          }
    for (const runId of VALUES)
      for (const level of ['log', 'warn', 'trace', 1])
        for (const text of ['', 'x', 2]) {
          cases.push(
            { type: 'log', runId, entry: { level, text } },
            { type: 'log', runId: 1, entry: { level, text, x: 1 } },
            { type: 'log', runId: 1, entry: { level }, extra: 1 },
            { type: 'log', runId, entry: [level, text] },
          );
        }
    const receipt = { wallMs: 1.5, modules: [{ moduleId: 'js:m', displayName: '@acme/m', digest: 'a'.repeat(64) }], calls: [], denied: [] };
    const ok = { ok: true, value: { a: [1, 'two'] }, logs: [{ level: 'log', text: 'x' }], receipt };
    const failed = { ok: false, code: 'timeout', message: 'late', logs: [], receipt };
    const done = (result: unknown, extra: Record<string, unknown> = {}) => ({ type: 'done', runId: 4, result, healthy: true, ...extra });
    cases.push(done(ok), done(failed), done(ok, { healthy: false }), done(ok, { healthy: 1 }), done(ok, { extra: 1 }), done(ok, { runId: 1.5 }));
    for (const value of [...VALUES, 'x', { a: 1 }, ['a'], { __proto__: null, a: 'b' }]) {
      cases.push(
        done({ ...ok, value }),
        done({ ...ok, logs: value }),
        done({ ...ok, logs: [value] }),
        done({ ...ok, logs: [{ level: value, text: 'x' }] }),
        done({ ...ok, logs: [{ level: 'log', text: value }] }),
        done({ ...ok, receipt: value }),
        done({ ...ok, receipt: { ...receipt, wallMs: value } }),
        done({ ...ok, receipt: { ...receipt, modules: value } }),
        done({ ...ok, receipt: { ...receipt, modules: [{ ...receipt.modules[0], digest: value }] } }),
        done({ ...ok, receipt: { ...receipt, calls: [{ kind: 'wasm', name: 'f', ok: value }] } }),
        done({ ...ok, receipt: { ...receipt, denied: [value] } }),
        done({ ...failed, code: value }),
        done({ ...failed, message: value }),
        done({ ...ok, ok: value }),
      );
    }
    const { value: _value, ...noValue } = ok;
    cases.push(
      done(noValue),
      done({ ...ok, extra: 1 }),
      done({ ...failed, value: 1 }),
      done({ ...failed, code: 'not-a-code' }),
      done({ ...ok, logs: [{ level: 'log', text: 'x', extra: 1 }] }),
      done({ ...ok, receipt: { ...receipt, extra: 1 } }),
      done({ ...ok, receipt: { ...receipt, calls: [{ kind: 'wasm', name: 'f', ok: true }] } }),
      done({ ...ok, receipt: { ...receipt, modules: [{ ...receipt.modules[0], extra: 1 }] } }),
      { type: 'resend', runId: 4 },
      { type: 'resend', runId: 1.5 },
      { type: 'resend' },
      { type: 'resend', runId: 4, extra: 1 },
    );
    expect(mismatches(parseFromWorker, FromWorkerSchema, cases)).toEqual([]);
    expect(parseFromWorker({ type: 'log', runId: 3, entry: { level: 'warn', text: 'w' }, extra: 1 })).toEqual({
      type: 'log',
      runId: 3,
      entry: { level: 'warn', text: 'w' },
    });
    expect(parseFromWorker({ type: 'host-call', runId: 1, callId: 2, kind: 'wasm', name: 'm', args: ['f', [1]], extra: 1 })).toEqual({
      type: 'host-call',
      runId: 1,
      callId: 2,
      kind: 'wasm',
      name: 'm',
      args: ['f', [1]],
    });
  });

  it('parseToWorker agrees with ToWorkerSchema', () => {
    const results: unknown[] = [
      { ok: true, value: 1 },
      { ok: true },
      { ok: true, value: undefined },
      { ok: false, code: 'c', message: 'm' },
      { ok: false, code: 'wasm-trap', message: 'm' },
      { ok: false, code: 1, message: 'm' },
      { ok: 'true', value: 1 },
      [],
      null,
      { ok: true, value: { a: [1] }, x: 2 },
      { ok: false, code: 'c', message: 'm', x: 1 },
      { ok: false, code: 'timeout', message: 'm', x: 1 },
    ];
    const cases: unknown[] = [];
    for (const runId of VALUES)
      for (const result of results) cases.push({ type: 'host-result', runId, callId: 2, result }, { type: 'host-result', runId: 1, callId: runId, result });
    expect(mismatches(parseToWorker, ToWorkerSchema, cases)).toEqual([]);
  });

  it('an unknown code in a worker message is a parse failure, both ways', () => {
    const receipt = { wallMs: 1, modules: [], calls: [], denied: [] };
    const done = (code: string) => ({ type: 'done', runId: 1, healthy: true, result: { ok: false, code, message: 'm', logs: [], receipt } });
    const hostResult = (code: string) => ({ type: 'host-result', runId: 1, callId: 2, result: { ok: false, code, message: 'm' } });
    const denial = (code: string) => ({
      type: 'done',
      runId: 1,
      healthy: true,
      result: { ok: true, value: 1, logs: [], receipt: { ...receipt, denied: [{ kind: 'import', request: 'x', from: 'y', code, reason: 'r' }] } },
    });
    const call = (code: string) => ({
      type: 'done',
      runId: 1,
      healthy: true,
      result: { ok: true, value: 1, logs: [], receipt: { ...receipt, calls: [{ kind: 'wasm', name: 'f', ok: false, code }] } },
    });
    for (const make of [done, denial, call]) {
      expect(parseFromWorker(make('timeout'))).toBeDefined();
      expect(parseFromWorker(make('made-up-code'))).toBeUndefined();
    }
    expect(parseToWorker(hostResult('capability-denied'))).toEqual(hostResult('capability-denied'));
    expect(parseToWorker(hostResult('made-up-code'))).toBeUndefined();
  });

  it('parseToWorker agrees with ToWorkerSchema on run messages, field by field', () => {
    const module = {
      moduleId: 'js:m',
      kind: 'js',
      packName: '@acme/m',
      packVersion: '1.0.0',
      displayName: '@acme/m',
      source: 'export const v = 1;',
      imports: { './u.js': 'js:u' },
      digest: 'a'.repeat(64),
    };
    const request = {
      code: 'return x;',
      entries: { '@acme/m': 'js:m' },
      modules: { 'js:m': module },
      inputs: { x: 1, y: { deep: [1, 'two'] }, z: null },
      grants: { fetch: true, workspace: false, secrets: ['K'] },
      timeoutMs: 1000,
    };
    const run = (over: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
      type: 'run',
      runId: 7,
      request: { ...request, ...over },
      ...extra,
    });
    const withModule = (over: Record<string, unknown>) => run({ modules: { 'js:m': { ...module, ...over } } });
    const cases: unknown[] = [
      run(),
      run({}, { wasm: undefined }),
      run({}, { extra: 1 }),
      { type: 'run', runId: 1.5, request },
      { type: 'run', request },
      ...[true, false, 1, 'true', undefined, null].map((nested) => run({}, { nested })),
      run({}, { nested: true, extra: 1 }),
      run({ timeoutMs: 0 }, { nested: true }),
    ];
    for (const value of [...VALUES, 'x'.repeat(10), { a: 'b' }, { a: 1 }, ['a'], { __proto__: null, a: 'b' }]) {
      for (const field of ['code', 'entries', 'modules', 'inputs', 'grants', 'timeoutMs', 'partition']) cases.push(run({ [field]: value }));
      for (const field of Object.keys(module)) cases.push(withModule({ [field]: value }));
      cases.push(
        run({ grants: { ...request.grants, fetch: value } }),
        run({ grants: { ...request.grants, secrets: [value] } }),
        run({ inputs: { ok: value } }),
      );
    }
    const { timeoutMs: _timeout, ...missing } = request;
    cases.push(
      { type: 'run', runId: 1, request: missing },
      run({ extra: 1 }),
      withModule({ extra: 1 }),
      withModule({ moduleId: '' }),
      withModule({ kind: 'css' }),
      run({ inputs: { 'not-an-identifier': 1 } }),
      run({ inputs: JSON.parse('{"__proto__": 1}') as unknown }),
      run({ grants: { fetch: true, workspace: true, secrets: [], more: 1 } }),
      run({ grants: { fetch: true, workspace: true, secrets: Array.from({ length: 65 }, () => 's') } }),
      run({ grants: { fetch: true, workspace: true, secrets: ['s'.repeat(257)] } }),
      run({ timeoutMs: 0 }),
      run({ timeoutMs: 10 ** 9 }),
      run({ code: 'x'.repeat(10 ** 6 * 11) }),
      run({ modules: [module] }),
      run({ entries: { a: 1 } }),
      run({ partition: 'ipc' }),
      run({ partition: 'ipc' }, { nested: true }),
      run({ partition: '' }),
      run({ partition: 'p'.repeat(128) }),
      run({ partition: 'p'.repeat(129) }),
      run({ partition: undefined }),
      run({}, { sources: { 'js:m': 3 } }),
      run({}, { sources: { 'js:m': -3 } }),
      run({}, { sources: { 'js:m': 1.5 } }),
      run({}, { sources: { 'js:m': '3' } }),
      run({}, { sources: [] }),
      run({}, { sources: null }),
      run({}, { sources: {}, nested: true }),
      run({}, { sources: { 'js:m': 3 }, nested: true, extra: 1 }),
    );
    expect(mismatches(parseToWorker, ToWorkerSchema, cases)).toEqual([]);
  });

  it('parseWasmWorkerReply agrees with WasmWorkerReplySchema', () => {
    const cases: unknown[] = [{ type: 'ready' }, { type: 'missing', id: 1 }, { type: 'result', id: 1, ok: true, runMs: 0 }];
    for (const id of VALUES)
      for (const value of VALUES)
        for (const runMs of [0, 1.2, -1, Number.NaN, Infinity, '1'])
          for (const ok of [true, false]) {
            cases.push({ type: 'result', id, ok, value, runMs }, { type: 'result', id, ok, value, runMs, x: 1 });
          }
    expect(mismatches(parseWasmWorkerReply, WasmWorkerReplySchema, cases)).toEqual([]);
  });
});
