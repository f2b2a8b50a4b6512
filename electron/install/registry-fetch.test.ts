// The capped read every registry request goes through, against a real HTTP server on 127.0.0.1:
// an answer far over the cap (declared or not) is cut once the count passes the cap, and a body
// that trickles forever is cut at the deadline. That the reader stopped early is proven from the
// server's side: it saw the socket closed before its answer finished, having written far less
// than the whole. No times are asserted.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileServer, type HostileServer } from '../testing/hostile-http.ts';
import { bodyText, fetchCapped, streamCapped } from './registry-fetch.ts';

const MB = 1024 * 1024;
const FLOOD = 128 * MB;
/** What loopback socket buffers (up to 32 MB of receive buffer here) may hold beyond what the client read. */
const BUFFER_SLACK = 48 * MB;

let server: HostileServer;

beforeAll(async () => {
  server = await startHostileServer({
    '/small': { kind: 'json', body: { hello: 'world' } },
    '/declared': { kind: 'flood', totalBytes: FLOOD, declareLength: true },
    '/undeclared': { kind: 'flood', totalBytes: FLOOD, declareLength: false },
    '/error-flood': { kind: 'flood', totalBytes: FLOOD, declareLength: false, status: 500 },
    '/trickle': { kind: 'trickle', everyMs: 20 },
  });
});

afterAll(async () => {
  await server?.close();
});

describe('fetchCapped', () => {
  it('reads an answer within the cap whole', async () => {
    const got = await fetchCapped(`${server.url}small`, { maxBytes: MB, timeoutMs: 10_000 });
    expect(got.ok && JSON.parse(bodyText(got.bytes))).toEqual({ hello: 'world' });
  });

  it('an answer whose Content-Length is over the cap is refused before its body is read', async () => {
    const got = await fetchCapped(`${server.url}declared`, { maxBytes: MB, timeoutMs: 10_000 });
    expect(got).toEqual({ ok: false, kind: 'too-large', maxBytes: MB });
    const [served] = server.servedAt('/declared');
    await served!.closed;
    expect(served!.finished).toBe(false);
    expect(served!.sent).toBeLessThan(BUFFER_SLACK);
  });

  it('an answer without a Content-Length is cut once the count passes the cap', async () => {
    let delivered = 0;
    const got = await streamCapped(`${server.url}undeclared`, { maxBytes: MB, timeoutMs: 10_000 }, (chunk) => (delivered += chunk.byteLength));
    expect(got).toEqual({ ok: false, kind: 'too-large', maxBytes: MB });
    // Nothing past the cap reached the consumer.
    expect(delivered).toBeLessThanOrEqual(MB);
    const [served] = server.servedAt('/undeclared');
    await served!.closed;
    expect(served!.finished).toBe(false);
    expect(served!.sent).toBeLessThan(MB + BUFFER_SLACK);
  });

  it('an error status is a status failure and its body is not read', async () => {
    const got = await fetchCapped(`${server.url}error-flood`, { maxBytes: MB, timeoutMs: 10_000 });
    expect(got).toEqual({ ok: false, kind: 'status', status: 500 });
    const [served] = server.servedAt('/error-flood');
    await served!.closed;
    expect(served!.finished).toBe(false);
  });

  it('a body that trickles forever is cut at the deadline and its socket closed', async () => {
    const got = await fetchCapped(`${server.url}trickle`, { maxBytes: MB, timeoutMs: 400 });
    expect(got).toEqual({ ok: false, kind: 'timeout', timeoutMs: 400 });
    const [served] = server.servedAt('/trickle');
    await served!.closed;
    expect(served!.finished).toBe(false);
  });

  it('the deadline holds while the garbage collector runs during the read', async () => {
    // Node 20's fetch follows an abort signal through a WeakRef, so after a collection an abort
    // alone left the read pending until the server hung up (which a trickle never does): about
    // every other such read did. Eight reads with collections every 10 ms must each end at their
    // deadline; one that does not hangs this test until its timeout.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collecting = setInterval(gc, 10);
    const outcomes: unknown[] = [];
    try {
      for (let i = 0; i < 8; i++) outcomes.push(await fetchCapped(`${server.url}trickle`, { maxBytes: MB, timeoutMs: 200 }));
    } finally {
      clearInterval(collecting);
    }
    expect(outcomes).toEqual(Array.from({ length: 8 }, () => ({ ok: false, kind: 'timeout', timeoutMs: 200 })));
  });

  it('a server that is not there is unreachable, with the reason', async () => {
    const gone = await startHostileServer({});
    const url = gone.url;
    await gone.close();
    expect(await fetchCapped(url, { maxBytes: MB, timeoutMs: 10_000 })).toEqual({ ok: false, kind: 'unreachable', detail: 'ECONNREFUSED' });
  });
});
