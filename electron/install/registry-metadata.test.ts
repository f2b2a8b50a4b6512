import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileServer, type HostileServer } from '../testing/hostile-http.ts';
import { compareVersions, fetchPackument, manifestSurface, packumentUrl, PACKUMENT_MAX_BYTES, removedSurface } from './registry-metadata.ts';

const MB = 1024 * 1024;
/** What loopback socket buffers may hold beyond what the client read. */
const BUFFER_SLACK = 48 * MB;

describe('registry metadata helpers', () => {
  it('encodes a scoped name the way npm asks for it', () => {
    expect(packumentUrl('http://127.0.0.1:4873', '@a/b')).toBe('http://127.0.0.1:4873/@a%2fb');
    expect(packumentUrl('https://r.test/npm/', 'plain')).toBe('https://r.test/npm/plain');
  });

  it('orders versions numerically, a prerelease before its release', () => {
    expect(compareVersions('2.0.0', '1.9.9')).toBe(1);
    expect(compareVersions('1.10.0', '1.9.0')).toBe(1);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    expect(compareVersions('1.0.0-beta.1', '1.0.0')).toBe(-1);
    expect(compareVersions('0.1.0', '0.2.0')).toBe(-1);
  });

  it('lists modules and WASM exports a newer manifest no longer declares', () => {
    const before = manifestSurface('@x/p', {
      apiVersion: 1,
      sandboxModules: [
        { name: '.', kind: 'js', file: 'a.js' },
        { name: 'old', kind: 'js', file: 'o.js' },
        { name: 'math', kind: 'wasm', file: 'm.wasm', memoryPagesMax: 1, exports: ['add', { wasm: 'mul_i32', as: 'mul' }] },
      ],
    });
    const after = manifestSurface('@x/p', {
      apiVersion: 1,
      sandboxModules: [
        { name: '.', kind: 'js', file: 'a.js' },
        { name: 'math', kind: 'wasm', file: 'm.wasm', memoryPagesMax: 1, exports: ['add'] },
      ],
    });
    expect(removedSurface(before, after)).toEqual({ removedModules: ['@x/p/old'], removedExports: [{ specifier: '@x/p/math', names: ['mul'] }] });
    expect(manifestSurface('@x/p', { not: 'a manifest' }).specifiers.size).toBe(0);
  });

  it('leaves out an entry whose name discovery would skip: it was never importable, and its specifier would not fit an answer', () => {
    const surface = manifestSurface('@x/p', {
      apiVersion: 1,
      sandboxModules: [
        { name: 'n'.repeat(256), kind: 'js', file: 'a.js' },
        { name: '../up', kind: 'js', file: 'b.js' },
        { name: 'ok', kind: 'js', file: 'c.js' },
      ],
    });
    expect([...surface.specifiers]).toEqual(['@x/p/ok']);
  });
});

// Against a real HTTP server on 127.0.0.1 playing the registry; that a read stopped early is
// proven from the server's side (the socket closed before its answer finished), not by timing.
describe('fetchPackument reads within a byte cap and a deadline', () => {
  let server: HostileServer;
  beforeAll(async () => {
    server = await startHostileServer({
      '/@sp-fixture%2fok': { kind: 'json', body: { 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { version: '1.0.0' } } } },
      '/@sp-fixture%2fhuge': { kind: 'flood', totalBytes: 120 * MB, declareLength: false },
      '/@sp-fixture%2fslow': { kind: 'trickle', everyMs: 20 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reads a packument within the cap; a missing one is not-found', async () => {
    expect(await fetchPackument(server.url, '@sp-fixture/ok')).toMatchObject({ ok: true, value: { 'dist-tags': { latest: '1.0.0' } } });
    expect(await fetchPackument(server.url, '@sp-fixture/none')).toEqual({
      ok: false,
      code: 'not-found',
      message: `@sp-fixture/none does not exist on the registry ${server.url}.`,
    });
  });

  it('a 120 MB packument is cut at the cap with a sentence', async () => {
    expect(await fetchPackument(server.url, '@sp-fixture/huge')).toEqual({
      ok: false,
      code: 'invalid-data',
      message: `The registry ${server.url} answered for @sp-fixture/huge with more than the 16 MB a package's metadata may be; it was not read.`,
    });
    const [served] = server.servedAt('/@sp-fixture%2fhuge');
    await served!.closed;
    expect(served!.finished).toBe(false);
    expect(served!.sent).toBeLessThan(PACKUMENT_MAX_BYTES + BUFFER_SLACK);
  });

  it('a packument that trickles is cut at the deadline', async () => {
    expect(await fetchPackument(server.url, '@sp-fixture/slow', 400)).toEqual({
      ok: false,
      code: 'registry-unreachable',
      message: `The registry ${server.url} could not be reached for @sp-fixture/slow: no complete answer within 0.4 s.`,
    });
    const [served] = server.servedAt('/@sp-fixture%2fslow');
    await served!.closed;
    expect(served!.finished).toBe(false);
  });
});
