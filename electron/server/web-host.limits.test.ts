// The web host's caps and timeouts, against the real server on 127.0.0.1 with real sockets: a
// silent socket, a request head or body that never ends, sockets over the connection cap, event
// streams over the stream cap, and the numbers (300 held sockets, 200 event streams)
// against the default limits. Sockets that never showed the token (silent, a request line sent
// slowly, requests with a wrong token) cannot lock out a request that carries it: it is answered
// 200 with the cap full of them, and only sockets that showed the token fill the cap for good.
// Every wait is bounded; nothing here loops until it succeeds.

import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../services/app-services.ts';
import { DEFAULT_CONNECTION_LIMITS } from './connection-limits.ts';
import { fixtureDataDir, raw, REPO_ROOT, type TempDir } from '../testing/test-support.ts';
import { startWebHost, type WebHost, type WebHostOptions } from './web-host.ts';

let data: TempDir;
let services: AppServices;
const hosts: WebHost[] = [];

beforeAll(async () => {
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
});

afterAll(async () => {
  for (const host of hosts.splice(0)) await host.close();
  await services?.dispose();
  await data?.remove();
});

async function host(limits?: WebHostOptions['limits']): Promise<WebHost> {
  const started = await startWebHost({
    dispatcher: services.dispatcher,
    events: services.events,
    catalog: services.catalog,
    port: 0,
    ...(limits ? { limits } : {}),
  });
  hosts.push(started);
  return started;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Held {
  readonly socket: Socket;
  /** Everything the server wrote. */
  received(): string;
  /** Resolves with ms from connect to close, or undefined if still open after `withinMs`. */
  closed(withinMs: number): Promise<number | undefined>;
  /** Resolves true once the server wrote something matching `pattern`, false if not within `withinMs`. */
  receivedMatch(pattern: RegExp, withinMs: number): Promise<boolean>;
}

/** A raw TCP connection that sends `first` (or nothing) and then holds still. */
async function hold(port: number, first?: string): Promise<Held> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let closedAt: number | undefined;
  const closeListeners: (() => void)[] = [];
  const dataListeners: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const listener of dataListeners) listener();
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closedAt = Date.now();
    for (const listener of closeListeners) listener();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const startedAt = Date.now();
  if (first !== undefined) socket.write(first);
  return {
    socket,
    received: () => text,
    closed: (withinMs) =>
      new Promise((resolve) => {
        if (closedAt !== undefined) return resolve(closedAt - startedAt);
        const timer = setTimeout(() => resolve(undefined), withinMs);
        closeListeners.push(() => {
          clearTimeout(timer);
          resolve((closedAt as number) - startedAt);
        });
      }),
    receivedMatch: (pattern, withinMs) =>
      new Promise((resolve) => {
        if (pattern.test(text)) return resolve(true);
        const timer = setTimeout(() => resolve(false), withinMs);
        dataListeners.push(() => {
          if (!pattern.test(text)) return;
          clearTimeout(timer);
          resolve(true);
        });
      }),
  };
}

interface Stream {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** The body for a refusal; '' for an open stream. */
  readonly body: string;
  /** Resolves with the next chunk the open stream delivers, or undefined after `withinMs`. */
  next(withinMs: number): Promise<string | undefined>;
  close(): void;
}

function openStream(target: WebHost): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: '/api/events',
        headers: { Host: `127.0.0.1:${target.port}`, Authorization: `Bearer ${target.token}` },
        agent: false,
      },
      (res) => {
        const close = () => req.destroy();
        const next = (withinMs: number) =>
          new Promise<string | undefined>((done) => {
            const timer = setTimeout(() => {
              res.off('data', onData);
              done(undefined);
            }, withinMs);
            const onData = (chunk: Buffer) => {
              clearTimeout(timer);
              done(chunk.toString('utf8'));
            };
            res.once('data', onData);
          });
        if (res.statusCode === 200) {
          res.once('data', () => resolve({ status: 200, headers: res.headers, body: '', next, close }));
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), next, close }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A raw GET /api/events with the token: once answered, its socket has shown the token. */
const authorisedStream = (target: WebHost) => `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nAuthorization: Bearer ${target.token}\r\n\r\n`;

const settings = (target: WebHost) =>
  raw(target.port, {
    method: 'POST',
    path: '/api/rpc/settings.get',
    headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': 'application/json' },
    body: '{}',
  });

describe('timeouts', () => {
  it('a socket that sends nothing is answered 408 and closed once headersTimeout has passed', async () => {
    const h = await host({ headersTimeoutMs: 600 });
    const silent = await hold(h.port);
    const after = await silent.closed(5_000);
    expect(after).toBeGreaterThanOrEqual(550);
    expect(after).toBeLessThan(3_000);
    expect(silent.received()).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  it('a request head that never ends is answered 408 and closed', async () => {
    const h = await host({ headersTimeoutMs: 600 });
    const slow = await hold(h.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nX-Slow: `);
    expect(await slow.closed(5_000)).toBeLessThan(3_000);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('a request body that stalls is cut off once requestTimeout has passed', async () => {
    const h = await host({ headersTimeoutMs: 600, requestTimeoutMs: 900 });
    const head = `POST /api/rpc/settings.get HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nAuthorization: Bearer ${h.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`;
    const stalled = await hold(h.port, head);
    const after = await stalled.closed(5_000);
    expect(after).toBeGreaterThanOrEqual(850);
    expect(after).toBeLessThan(4_000);
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('an event stream outlives requestTimeout and keeps delivering events', async () => {
    const h = await host({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
    const stream = await openStream(h);
    expect(stream.status).toBe(200);
    await sleep(1_200);
    services.events.emit({ type: 'catalog-changed', reason: 'reload', packCount: 1, moduleCount: 2 });
    expect(await stream.next(2_000)).toBe('event: catalog-changed\ndata: {"type":"catalog-changed","reason":"reload","packCount":1,"moduleCount":2}\n\n');
    stream.close();
  });
});

describe('caps', () => {
  it('with the cap full of sockets that showed the token, a connection over it is answered 503 with a sentence; a silent one is dropped after the grace; room returns when sockets close', async () => {
    const h = await host({ maxConnections: 4, headersTimeoutMs: 5_000, overLimitGraceMs: 300 });
    const held: Held[] = [];
    // Event streams: authorised requests that hold their sockets for as long as the client likes.
    for (let i = 0; i < 4; i++) {
      const stream = await hold(h.port, authorisedStream(h));
      expect(await stream.receivedMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*: connected\n\n/, 5_000)).toBe(true);
      held.push(stream);
    }
    // The server may count the last socket a moment after the client sees it connected.
    let refused = await settings(h);
    for (let i = 0; i < 20 && refused.status === 200; i++) {
      await sleep(25);
      refused = await settings(h);
    }
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    expect(refused.json()).toEqual({
      ok: false,
      code: 'too-many-connections',
      message: 'This app already serves 4 connections at once; close a tab or window that shows it, then try again.',
    });

    const extra = await hold(h.port);
    const dropped = await extra.closed(3_000);
    expect(dropped).toBeGreaterThanOrEqual(250);
    expect(dropped).toBeLessThan(2_000);
    expect(extra.received()).toBe('');
    for (const socket of held) expect(await socket.closed(0)).toBeUndefined();

    for (const socket of held) socket.socket.destroy();
    for (const socket of held) await socket.closed(1_000);
    let answer = await settings(h);
    for (let i = 0; i < 20 && answer.status !== 200; i++) {
      await sleep(25);
      answer = await settings(h);
    }
    expect(answer.status).toBe(200);
  });

  it('an event stream over the cap is answered 429 with a sentence; closing one makes room', async () => {
    const h = await host({ maxEventStreams: 3 });
    const streams: Stream[] = [];
    for (let i = 0; i < 3; i++) streams.push(await openStream(h));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await openStream(h);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(JSON.parse(refused.body)).toEqual({
      ok: false,
      code: 'too-many-connections',
      message: 'This app already has 3 event streams open (one per tab or window that shows it); close one, then reload.',
    });

    streams.shift()?.close();
    let again = await openStream(h);
    for (let i = 0; i < 20 && again.status !== 200; i++) {
      await sleep(25);
      again = await openStream(h);
    }
    expect(again.status).toBe(200);
    for (const stream of [...streams, again]) stream.close();
  });

  it('with the default limits, 300 silent sockets leave 64 held and 236 dropped, and 200 event streams leave 16 open and 184 refused', async () => {
    const h = await host();
    const { maxConnections, maxEventStreams, overLimitGraceMs } = DEFAULT_CONNECTION_LIMITS;
    expect([maxConnections, maxEventStreams]).toEqual([64, 16]);
    const held: Held[] = [];
    for (let i = 0; i < 300; i++) held.push(await hold(h.port));
    const closed = await Promise.all(held.map((socket) => socket.closed(overLimitGraceMs + 2_000)));
    expect(closed.filter((ms) => ms === undefined)).toHaveLength(64);
    expect(closed.filter((ms) => ms !== undefined)).toHaveLength(236);
    for (const socket of held) socket.socket.destroy();
    await Promise.all(held.map((socket) => socket.closed(1_000)));

    const statuses: number[] = [];
    const open: Stream[] = [];
    for (let i = 0; i < 200; i++) {
      const stream = await openStream(h);
      statuses.push(stream.status);
      if (stream.status === 200) open.push(stream);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(16);
    expect(statuses.filter((s) => s === 429)).toHaveLength(184);
    for (const stream of open) stream.close();
  }, 30_000);
});

describe('sockets that never showed the token cannot lock out the client that has it', () => {
  const { maxConnections } = DEFAULT_CONNECTION_LIMITS;
  /** Sockets opened beyond the cap, 100 in all. */
  const beyond = 36;

  /**
   * With the default limits, `count` sockets opened by `open` in turn, then a request with the
   * token: it is answered 200, and the oldest sockets made room (one for each socket beyond the
   * cap and one for the request), closed by the server; the newest stay held.
   */
  async function tokenGetsThrough(open: (h: WebHost) => Promise<Held>): Promise<Held[]> {
    const h = await host();
    expect(maxConnections).toBe(64);
    const held: Held[] = [];
    for (let i = 0; i < maxConnections + beyond; i++) held.push(await open(h));
    const answer = await settings(h);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ ok: true });
    const closed = await Promise.all(held.map((socket) => socket.closed(1_000)));
    expect(closed.map((ms) => (ms === undefined ? 'held' : 'closed'))).toEqual([
      ...Array<string>(beyond + 1).fill('closed'),
      ...Array<string>(maxConnections - 1).fill('held'),
    ]);
    for (const socket of held) socket.socket.destroy();
    return held;
  }

  it('100 silent sockets: a request with the token is answered 200; the oldest silent ones were closed without a byte', async () => {
    const held = await tokenGetsThrough((h) => hold(h.port));
    expect(held.slice(0, beyond + 1).map((socket) => socket.received())).toEqual(Array<string>(beyond + 1).fill(''));
  });

  it('100 sockets sending a request line a byte at a time: a request with the token is answered 200', async () => {
    const dripping: Held[] = [];
    // A request line that stays valid as it grows and never ends (no CRLF).
    const drip = setInterval(() => {
      for (const socket of dripping) if (!socket.socket.destroyed) socket.socket.write('a');
    }, 100);
    try {
      await tokenGetsThrough(async (h) => {
        const socket = await hold(h.port, 'GET /api/rpc/settings.get?');
        dripping.push(socket);
        return socket;
      });
    } finally {
      clearInterval(drip);
    }
  });

  it('100 sockets whose requests carried a wrong token (answered 401, kept alive): a request with the token is answered 200', async () => {
    const held = await tokenGetsThrough(async (h) => {
      const wrong = 'x'.repeat(h.token.length);
      const request = `POST /api/rpc/settings.get HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nAuthorization: Bearer ${wrong}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
      const socket = await hold(h.port, request);
      // Answered and idle on a kept-alive socket before the next one opens.
      expect(await socket.receivedMatch(/^HTTP\/1\.1 401 Unauthorized\r\n[\s\S]*\r\n\r\n\{"ok":false,"code":"unauthorized"/, 5_000)).toBe(true);
      return socket;
    });
    expect(held.every((socket) => !/connection: close/i.test(socket.received()))).toBe(true);
  });

  it('a socket that showed the token is never evicted: with the cap full of silent sockets and one event stream, more silent sockets evict only silent ones', async () => {
    const h = await host({ maxConnections: 4 });
    const stream = await hold(h.port, authorisedStream(h));
    expect(await stream.receivedMatch(/: connected\n\n/, 5_000)).toBe(true);
    const silent: Held[] = [];
    for (let i = 0; i < 12; i++) silent.push(await hold(h.port));
    const closed = await Promise.all(silent.map((socket) => socket.closed(1_000)));
    // Three places beside the stream: the three newest silent sockets hold them.
    expect(closed.map((ms) => (ms === undefined ? 'held' : 'closed'))).toEqual([...Array<string>(9).fill('closed'), 'held', 'held', 'held']);
    expect(await stream.closed(0)).toBeUndefined();
    services.events.emit({ type: 'catalog-changed', reason: 'reload', packCount: 1, moduleCount: 2 });
    expect(await stream.receivedMatch(/event: catalog-changed\n/, 5_000)).toBe(true);
    for (const socket of [stream, ...silent]) socket.socket.destroy();
  });
});
