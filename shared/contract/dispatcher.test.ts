// The dispatcher on its own: handlers are plain functions here (they are its input), so the test
// can make one throw or answer outside its contract and see that neither reaches the caller as
// anything but a tagged `internal` failure, while the bug is reported.

import { describe, expect, it } from 'vitest';
import { ok } from '../protocol/result.ts';
import { createDispatcher, ContractViolation, type Handlers } from './dispatcher.ts';
import { METHOD_NAMES } from './methods.ts';

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
});
