// A real HTTP server on 127.0.0.1 that answers like a hostile or broken registry: a body far over
// any cap (with or without a Content-Length), or one that trickles a byte at a time and never
// ends. It counts what it managed to write and whether the client closed the socket before the
// answer finished, so a test can prove a reader stopped early without timing anything.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer =
  | { readonly kind: 'json'; readonly body: unknown; readonly status?: number }
  /** `totalBytes` of JSON-ish filler (an array that never closes in time), written as fast as the client reads. */
  | { readonly kind: 'flood'; readonly totalBytes: number; readonly declareLength: boolean; readonly status?: number }
  /** One byte every `everyMs`, forever (until the client goes away). */
  | { readonly kind: 'trickle'; readonly everyMs: number };

/** What the server did for one request. */
export interface Served {
  readonly path: string;
  /** Body bytes handed to the socket. */
  sent: number;
  /** True once the whole answer was written. */
  finished: boolean;
  /** Resolves when the response is over: finished, or the client closed the socket. */
  readonly closed: Promise<void>;
}

export interface HostileServer {
  /** With a trailing slash. */
  readonly url: string;
  /** Requests seen so far, in order. */
  readonly served: readonly Served[];
  /** The requests for one path. */
  servedAt(path: string): Served[];
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x20);

function flood(res: ServerResponse, served: Served, totalBytes: number): void {
  res.write('[');
  served.sent += 1;
  const pump = (): void => {
    while (served.sent < totalBytes && !res.destroyed) {
      const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, totalBytes - served.sent));
      served.sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (res.destroyed) return;
    res.end(() => (served.finished = true));
  };
  pump();
}

/** Starts a server answering each path with `answers[path]` (404 for any other). */
export async function startHostileServer(answers: Readonly<Record<string, Answer>>): Promise<HostileServer> {
  const served: Served[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    let resolveClosed = (): void => {};
    const record: Served = { path, sent: 0, finished: false, closed: new Promise<void>((resolve) => (resolveClosed = resolve)) };
    served.push(record);
    res.on('close', () => resolveClosed());
    const answer = answers[path];
    if (!answer) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}', () => (record.finished = true));
      return;
    }
    switch (answer.kind) {
      case 'json': {
        const body = Buffer.from(JSON.stringify(answer.body));
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        record.sent = body.length;
        res.end(body, () => (record.finished = true));
        return;
      }
      case 'flood':
        res.writeHead(answer.status ?? 200, {
          'content-type': 'application/json',
          ...(answer.declareLength ? { 'content-length': String(answer.totalBytes) } : {}),
        });
        flood(res, record, answer.totalBytes);
        return;
      case 'trickle': {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        const timer = setInterval(() => {
          record.sent += 1;
          res.write(' ');
        }, answer.everyMs);
        res.on('close', () => clearInterval(timer));
        return;
      }
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    served,
    servedAt: (path) => served.filter((s) => s.path === path),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
