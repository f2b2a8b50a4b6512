import { describe, expect, it } from 'vitest';
import { rpcPath } from './web-host.ts';

const parsed = (raw: string): string => new URL(raw, 'http://127.0.0.1:1').pathname;

describe('rpcPath: the route skips URL parsing only where URL would change nothing', () => {
  it('takes plain service paths as they are, and they are exactly what URL parses them to', () => {
    for (const raw of [
      '/api/rpc/code.run',
      '/api/rpc/settings.get',
      '/api/rpc/packs.install',
      '/api/rpc/a_b-c.9',
      '/api/rpc/...',
      `/api/rpc/${'m'.repeat(64)}`,
    ]) {
      expect(rpcPath(raw)).toBe(true);
      expect(parsed(raw)).toBe(raw);
    }
  });

  it('leaves every path URL would rewrite, or that carries a query or escapes, to URL', () => {
    const others = [
      '/api/rpc/.',
      '/api/rpc/..',
      '/api/rpc/%2e%2e',
      '/api/rpc/code.run?x=1',
      '/api/rpc/code.run#f',
      '/api/rpc/code.run/',
      '/api/rpc/a/../b',
      '/api/rpc\\code.run',
      '/api/rpc/code.run\t',
      '/api/rpc/code run',
      '/API/rpc/code.run',
      '//api/rpc/code.run',
      'http://127.0.0.1:1/api/rpc/code.run',
      '/api/rpc/',
      `/api/rpc/${'m'.repeat(65)}`,
      '/api/events',
      '/api/sandbox-modules/m_1?part=wasm',
    ];
    for (const raw of others) expect(rpcPath(raw)).toBe(false);
    expect(rpcPath(undefined)).toBe(false);
    // What URL does with a few of them, for the record: the fast path would have answered differently.
    expect(parsed('/api/rpc/..')).toBe('/api/');
    expect(parsed('/api/rpc/a/../b')).toBe('/api/rpc/b');
    expect(parsed('/api/rpc\\code.run')).toBe('/api/rpc/code.run');
  });
});
