// Refetching a tarball to check its integrity, against a real HTTP server on 127.0.0.1: the bytes
// are hashed as they stream in (every algorithm the recorded integrity names), a tarball over the
// cap is cut there and a body that trickles is cut at the deadline, each with a sentence and
// nothing run. That the read stopped early is proven from the server's side; no times asserted.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClosureEntry } from '../../shared/protocol/ledger.ts';
import { startHostileServer, type HostileServer } from '../testing/hostile-http.ts';
import { sriOf, verifyRefetch } from './refetch.ts';

const MB = 1024 * 1024;
/** What loopback socket buffers may hold beyond what the client read. */
const BUFFER_SLACK = 48 * MB;
const TARBALL = { any: 'bytes' };
const TARBALL_BYTES = Buffer.from(JSON.stringify(TARBALL));

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer({
    '/good.tgz': { kind: 'json', body: TARBALL },
    '/huge.tgz': { kind: 'flood', totalBytes: 120 * MB, declareLength: false },
    '/slow.tgz': { kind: 'trickle', everyMs: 20 },
  });
});
afterAll(async () => {
  await server?.close();
});

const entry = (file: string, integrity: string): ClosureEntry => ({
  name: '@sp-fixture/dep',
  version: '1.0.0',
  path: 'node_modules/@sp-fixture/dep',
  resolved: `${server.url}${file}`,
  integrity,
  hasInstallScript: true,
  treeDigest: '0'.repeat(64),
});
const limits = { maxBytes: MB, timeoutMs: 400 };

describe('verifyRefetch over HTTP', () => {
  it('verifies streamed bytes against any algorithm the integrity names, and names the sha512 it got on a mismatch', async () => {
    const both = `${sriOf(TARBALL_BYTES, 'sha256')} sha1-ignored`;
    expect(await verifyRefetch('/', [entry('good.tgz', both)], limits)).toEqual({ ok: true, value: { verified: ['@sp-fixture/dep@1.0.0'] } });
    expect(await verifyRefetch('/', [entry('good.tgz', sriOf(TARBALL_BYTES, 'sha512'))], limits)).toMatchObject({ ok: true });
    const other = sriOf(Buffer.from('other'), 'sha384');
    expect(await verifyRefetch('/', [entry('good.tgz', other)], limits)).toEqual({
      ok: false,
      code: 'integrity-mismatch',
      message: `The registry served a different artifact for @sp-fixture/dep@1.0.0 than the one first installed (expected ${other}, got ${sriOf(TARBALL_BYTES)}); nothing was run and the pack stays inactive.`,
    });
  });

  it('a tarball over the cap is cut there: a sentence, nothing run', async () => {
    const integrity = sriOf(TARBALL_BYTES);
    expect(await verifyRefetch('/', [entry('huge.tgz', integrity)], limits)).toEqual({
      ok: false,
      code: 'invalid-data',
      message: `Fetching ${server.url}huge.tgz stopped: the answer is larger than the 1 MB allowed for a package tarball, so it cannot be the artifact first installed; nothing was run.`,
    });
    const [served] = server.servedAt('/huge.tgz');
    await served!.closed;
    expect(served!.finished).toBe(false);
    expect(served!.sent).toBeLessThan(MB + BUFFER_SLACK);
  });

  it('a tarball that trickles is cut at the deadline: a sentence, nothing run', async () => {
    expect(await verifyRefetch('/', [entry('slow.tgz', sriOf(TARBALL_BYTES))], limits)).toEqual({
      ok: false,
      code: 'registry-unreachable',
      message: `Fetching ${server.url}slow.tgz failed (no complete answer within 0.4 s); nothing was run. Check your connection, then try again.`,
    });
    const [served] = server.servedAt('/slow.tgz');
    await served!.closed;
    expect(served!.finished).toBe(false);
  });
});
