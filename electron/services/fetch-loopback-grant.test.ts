// The bench's loopback fetch grant (`testOnlyPrivateFetchHosts`, app-services.ts) is reachable
// only by composing services with it: the same code.run request from every production face — the
// window (ipc), the web host (http), an agent (mcp), the CLI — is refused the loopback server and
// never reaches it, while services composed with the option reach it. Real workers, real sockets.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from './app-services.ts';
import { openCliServices, type CliServices } from '../cli/cli-services.ts';
import { fixtureDataDir, type TempDir } from '../testing/test-support.ts';

let server: http.Server;
let port: number;
let hits = 0;
let data: TempDir;
let production: AppServices;
let bench: AppServices;
let cli: CliServices;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  data = await fixtureDataDir();
  const made = await createAppServices({ dataDir: data.path });
  if (!made.ok) throw new Error(made.message);
  production = made.value;
  const granted = await createAppServices({ dataDir: data.path, testOnlyPrivateFetchHosts: ['127.0.0.1'] });
  if (!granted.ok) throw new Error(granted.message);
  bench = granted.value;
  cli = await openCliServices(data.path, { err: () => undefined });
  const opened = await cli.openCatalog();
  if (!opened.ok) throw new Error(opened.message);
});

afterAll(async () => {
  await cli?.close();
  await production?.dispose();
  await bench?.dispose();
  await data?.remove();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request = (fetchHosts: string[]) => ({
  code: `const r = await fetch("http://127.0.0.1:${port}/ping", { method: "GET" });\nreturn r.status;`,
  packages: [],
  fetchHosts,
});

describe('the bench-only loopback fetch grant', () => {
  it('every production face refuses the loopback server for the same request', async () => {
    for (const face of ['ipc', 'http', 'mcp'] as const) {
      const answer = await production.dispatcher.handle('code.run', request(['127.0.0.1']), { face });
      expect(answer, face).toMatchObject({ ok: true, value: { result: { ok: false, code: 'capability-denied' } } });
    }
    const fromCli = await cli.call('code.run', request(['127.0.0.1']), {});
    expect(fromCli).toMatchObject({ ok: true, value: { result: { ok: false, code: 'capability-denied' } } });
    expect(hits).toBe(0);
  });

  it("services composed with the option reach it, only when all the run's hosts are listed", async () => {
    const answer = await bench.dispatcher.handle('code.run', request(['127.0.0.1']), { face: 'http' });
    expect(answer).toMatchObject({ ok: true, value: { result: { ok: true, value: 200 } } });
    expect(hits).toBe(1);
    const widened = await bench.dispatcher.handle('code.run', request(['127.0.0.1', 'example.com']), { face: 'http' });
    expect(widened).toMatchObject({ ok: true, value: { result: { ok: false, code: 'capability-denied' } } });
    expect(hits).toBe(1);
  });
});
