// Bench support (load.ts): the serving side of `bench load`, in a process of its own. A fixture
// data dir (the shipped geo pack, the @acme/geo fixture, a generated pack whose WASM export never
// returns), the app's services and web host made as `serve` makes them, plus the bench-only
// loopback fetch grant (app-services.ts) for the one host named in argv; and a bare node:http
// server on another port for the floors: `/` answers `{}`, `/echo` answers once an echo worker
// thread replies. Prints one JSON line (LoadServerLine) on stdout; SIGINT or SIGTERM closes all
// of it and removes the data dir.

import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { createAppServices } from '../../electron/services/app-services.ts';
import { startWebHost } from '../../electron/server/web-host.ts';
import { writeSpinPack } from './spin-pack.ts';
import type { LoadServerLine } from './load.ts';

/** The only host the bench's runs may fetch on loopback (its own server, in the bench process). */
const FETCH_HOST = process.argv[2];
/** The checkout the fixtures come from (this file also runs bundled, where its own URL is the bundle's). */
const REPO = process.argv[3];
if (!FETCH_HOST || !REPO) throw new Error('usage: load-server.ts FETCH_HOST REPO');

/** The bare floor: a plain node:http server and an echo worker thread, nothing of ours between them. */
async function startBare(): Promise<{ origin: string; close(): Promise<void> }> {
  const echo = new Worker('require("node:worker_threads").parentPort.on("message", (m) => require("node:worker_threads").parentPort.postMessage(m));', {
    eval: true,
  });
  const waiting: (() => void)[] = [];
  echo.on('message', () => waiting.shift()?.());
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url !== '/echo') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      waiting.push(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
      echo.postMessage(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await echo.terminate();
    },
  };
}

const onBug = (where: string, error: unknown) => console.error(`bug in ${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-packs-data-'));
const data = { path: dataDir, remove: () => rm(dataDir, { recursive: true, force: true }) };
try {
  await cp(path.join(REPO, 'fixtures/discovery/good/node_modules/@acme/geo'), path.join(data.path, 'node_modules', '@acme', 'geo'), { recursive: true });
  await cp(path.join(REPO, 'packs', 'geo'), path.join(data.path, 'node_modules', '@nodetool-ai', 'sandbox-geo'), { recursive: true });
  await writeSpinPack(data.path);
  const created = await createAppServices({ dataDir: data.path, onBug, testOnlyPrivateFetchHosts: [FETCH_HOST] });
  if (!created.ok) throw new Error(`${created.code}: ${created.message}`);
  const services = created.value;
  try {
    const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0, onBug });
    try {
      const bare = await startBare();
      try {
        const line: LoadServerLine = { origin: host.origin, token: host.token, pid: process.pid, bare: bare.origin, dataDir: data.path };
        process.stdout.write(`${JSON.stringify(line)}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
      } finally {
        await bare.close();
      }
    } finally {
      await host.close();
    }
  } finally {
    await services.dispose();
  }
} finally {
  await data.remove();
}
