// A run's host-side work ends with the run: fetches still open when the run returns, times out,
// has its worker terminated by the watchdog or is cut off by pool.close() are aborted, which a
// real loopback server that never answers sees as its sockets closing. A run also has at most
// LIMITS.fetchConcurrency fetches in flight; one more fails at once with a tagged failure.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { toKernelRequest } from '../../../shared/protocol/kernel-request.ts';
import { runCode } from './run-code.ts';
import { SandboxPool } from './sandbox-pool.ts';

let server: http.Server;
let url = '';
const open = new Set<Socket>();
let connections = 0;

beforeAll(async () => {
  // Reads each request and never answers it: a fetch to it stays pending until someone aborts it.
  server = http.createServer(() => undefined);
  server.on('connection', (socket) => {
    connections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const grants = () => ({ fetch: { hosts: ['127.0.0.1'], allowPrivate: true } });
const empty = { entries: {}, modules: {} };

/** Resolves when the server has `count` open sockets (or fails after `ms`). */
async function openSockets(count: number, ms = 3000): Promise<number> {
  const until = performance.now() + ms;
  while (open.size !== count && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  return open.size;
}

describe('a run owns its host operations', () => {
  const pool = new SandboxPool({ size: 1, graceMs: 200 });
  afterAll(() => pool.close());

  it('caps fetches in flight per run and aborts the rest when the run returns at once', async () => {
    const before = connections;
    const result = await runCode(pool, {
      code: `const all = [];\nfor (let i = 0; i < 50; i++) all.push(fetch(${JSON.stringify(url)}).then(() => "answered", (e) => e.code + ": " + e.message));\nreturn await Promise.all(all.slice(${LIMITS.fetchConcurrency}));`,
      resolution: empty,
      grants: grants(),
    });
    const refused = `fetch-budget-concurrency: fetch: this run already has ${LIMITS.fetchConcurrency} requests in flight, the most one run may have; wait for one to finish before starting another.`;
    expect(result).toMatchObject({ ok: true, value: Array.from({ length: 50 - LIMITS.fetchConcurrency }, () => refused) });
    expect(await openSockets(0)).toBe(0);
    expect(connections - before).toBe(LIMITS.fetchConcurrency);
  });

  it('aborts a pending fetch when the run times out', async () => {
    const before = connections;
    const result = await runCode(pool, { code: `await fetch(${JSON.stringify(url)});\nreturn 1;`, resolution: empty, grants: grants(), timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 300 ms time limit and was stopped.' });
    expect(connections - before).toBe(1);
    expect(await openSockets(0)).toBe(0);
  });

  it('aborts a pending fetch when the watchdog terminates a worker stuck in one native call', async () => {
    const strict = new SandboxPool({ size: 1, graceMs: 1 });
    try {
      await strict.run({ code: '1', entries: {}, modules: {}, inputs: {}, grants: { fetch: false, workspace: false, secrets: [] }, timeoutMs: 1000 });
      const before = connections;
      const result = await runCode(strict, {
        // Busy (but interruptible) for 200 ms while the fetch connects, then one native call of seconds.
        code: `fetch(${JSON.stringify(url)});\nconst end = Date.now() + 200;\nwhile (Date.now() < end);\nreturn JSON.stringify(new Array(2e6).fill("abcdefgh")).length;`,
        resolution: empty,
        grants: grants(),
        timeoutMs: 400,
      });
      expect(result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 400 ms time limit and was stopped.' });
      // The watchdog, not the kernel, ended it: the worker was replaced.
      expect(strict.started).toBe(2);
      expect(connections - before).toBe(1);
      expect(await openSockets(0)).toBe(0);
    } finally {
      await strict.close();
    }
  });

  it('aborts a pending fetch when the pool is closed during the run', async () => {
    const closing = new SandboxPool({ size: 1 });
    // Its worker started first: the 3 s wait below is for the fetch, not for a worker's boot
    // (1.2-1.4 s under tsx alone, longer on a loaded machine).
    await closing.run(toKernelRequest({ code: 'return 0;', resolution: empty, timeoutMs: 5_000 }));
    const running = runCode(closing, { code: `await fetch(${JSON.stringify(url)});\nreturn 1;`, resolution: empty, grants: grants(), timeoutMs: 20_000 });
    expect(await openSockets(1)).toBe(1);
    await closing.close();
    expect(await running).toMatchObject({ ok: false, code: 'sandbox-crashed', message: 'The sandbox pool was closed during the run.' });
    expect(await openSockets(0)).toBe(0);
  });
});
