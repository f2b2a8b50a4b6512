// `sandbox-packs mcp` argument parsing: what the user may set at start-up (root, the session's
// modules, fetch hosts) and the sentences a mistake gets. The server itself is tested over stdio in
// electron/mcp/mcp-server.test.ts.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../command.ts';
import { parseMcpArgs } from './mcp.ts';

describe('mcp arguments', () => {
  it('parses --root, repeated --allow and --fetch (hosts lower-cased, duplicates dropped)', () => {
    expect(parseMcpArgs([])).toEqual({ fetchHosts: [] });
    expect(
      parseMcpArgs([
        '--root',
        'data',
        '--allow',
        '@acme/geo',
        '--allow',
        '@acme/geo/simplify-wasm',
        '--allow',
        '@acme/geo',
        '--fetch',
        'API.example.com',
        '--fetch=*.example.org',
      ]),
    ).toEqual({
      root: 'data',
      allow: ['@acme/geo', '@acme/geo/simplify-wasm'],
      fetchHosts: ['api.example.com', '*.example.org'],
    });
  });

  it('refuses unknown options, positionals, missing values and malformed hosts with a sentence', () => {
    expect(() => parseMcpArgs(['--port', '1'])).toThrow(UsageError);
    expect(() => parseMcpArgs(['--port', '1'])).toThrow('Unknown option "--port".');
    expect(() => parseMcpArgs(['serve'])).toThrow('Unexpected argument "serve".');
    expect(() => parseMcpArgs(['--root'])).toThrow('--root needs a value.');
    expect(() => parseMcpArgs(['--allow', ' @acme/geo'])).toThrow(
      '--allow " @acme/geo": give a module specifier such as @acme/geo or @acme/geo/simplify-wasm.',
    );
    expect(() => parseMcpArgs(['--fetch', 'http://example.com'])).toThrow('--fetch: 0: a host is a lower-case DNS name, optionally starting with "*."');
  });
});
