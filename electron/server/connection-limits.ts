// Bounds on what one client can hold open on the web host. Any local process or web page can
// connect to 127.0.0.1 without the token, so without bounds it could hold sockets until the app
// runs out of file descriptors: Node's headersTimeout only starts once the first byte arrives.
//
// Invariants: a socket must send a complete request head within `headersTimeoutMs` of connecting
// (else 408); at most `maxConnections` sockets are served; and sockets without the token never
// lock out the client that has it — a socket is proven once a request on it passed the token
// check, a proven socket is never evicted, and a connection is over the cap only when every
// served socket is proven (gateConnections says how).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { fail } from '../../shared/protocol/result.ts';
import { sendFailure } from './responses.ts';

export interface ConnectionLimits {
  /** Sockets served at once (SSE streams included). */
  readonly maxConnections: number;
  /** Event streams at once; more are answered 429 (event-stream.ts). */
  readonly maxEventStreams: number;
  /** Time from connecting to a complete request head. */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request, body included (not the response: SSE streams are unaffected). */
  readonly requestTimeoutMs: number;
  /** How long a socket over the cap may take to send the request it is answered 503 to. */
  readonly overLimitGraceMs: number;
}

/**
 * A browser opens at most 6 connections per host and one event stream per tab; 64 and 16 leave
 * room for several tabs, the CLI and a benchmark, and are far below a process's descriptor limit.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 64,
  maxEventStreams: 16,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  overLimitGraceMs: 1_000,
};

const RAW_408 = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/** Options for http.createServer that must be set at construction. */
export function serverTimeoutOptions(limits: ConnectionLimits) {
  // Node checks both timeouts on this interval (30 s by default, which would triple a short timeout).
  const interval = Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)));
  // A socket still without a whole request head is answered by the gate's own timer at
  // headersTimeoutMs (below, with Content-Length: 0). Node's check is the backstop, one interval
  // later: at the same deadline the two raced, and Node's 408 (no Content-Length) sometimes won on
  // a loaded machine (seen in CI).
  const headersTimeout = limits.headersTimeoutMs + interval;
  return {
    headersTimeout,
    requestTimeout: Math.max(limits.requestTimeoutMs, headersTimeout),
    connectionsCheckingInterval: interval,
  };
}

export interface ConnectionGate {
  /** Answers a request that arrived on a socket over the cap (503, then close); true when it did. */
  answerOverLimit(req: IncomingMessage, res: ServerResponse): boolean;
  /** The request on `socket` passed the token check: the socket is proven and never evicted. */
  authorised(socket: Socket): void;
  /** Sockets served (over-limit ones not counted). */
  readonly open: number;
}

/** The oldest member of an insertion-ordered set. */
function oldest(set: ReadonlySet<Socket>): Socket | undefined {
  for (const socket of set) return socket;
  return undefined;
}

/**
 * - A socket must send a complete request head within `headersTimeoutMs` of connecting: Node
 *   answers 408 once bytes have arrived; for a silent socket we write the same 408 ourselves.
 * - At most `maxConnections` sockets are served. A socket is *proven* once a request on it passed
 *   the token check (web-host.ts calls `authorised`), and a connection that finds the cap full
 *   evicts the longest-waiting unproven socket instead: silent ones, half-sent heads and sockets
 *   idle after a refused request first, in the order they last showed activity; one whose
 *   unauthorised request is still being answered only when no other is left. A proven socket is
 *   never evicted.
 * - Only when every served socket is proven is a connection over the cap. It is not refused
 *   silently: if it sends a request within `overLimitGraceMs` it is answered 503 with a sentence
 *   and closed (answerOverLimit), else dropped. Node's own maxConnections (four times ours) is
 *   the hard backstop for a flood faster than the grace.
 *
 * The bookkeeping of an unproven socket's request happens only before it is proven; once it is,
 * `authorised` costs two Set deletions that miss.
 */
export function gateConnections(server: Server, limits: ConnectionLimits): ConnectionGate {
  const overLimit = new WeakSet<Socket>();
  const silence = new WeakMap<Socket, NodeJS.Timeout>();
  // Served sockets not yet proven, in the order they last showed activity (connected, or had an
  // answer finish); `answering` holds those whose request is being answered right now.
  const waiting = new Set<Socket>();
  const answering = new Set<Socket>();
  /** Evicted sockets already left the count; their close must not leave it again. */
  const evicted = new WeakSet<Socket>();
  let open = 0;
  server.maxConnections = limits.maxConnections * 4;

  /** Stops serving `socket` to make room: it leaves the count now, not when its close arrives. */
  function evict(socket: Socket): void {
    waiting.delete(socket);
    answering.delete(socket);
    clearTimeout(silence.get(socket));
    silence.delete(socket);
    open -= 1;
    evicted.add(socket);
    socket.destroy();
  }

  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      const victim = oldest(waiting) ?? oldest(answering);
      if (victim) evict(victim);
    }
    const over = open >= limits.maxConnections;
    if (over) overLimit.add(socket);
    else {
      open += 1;
      waiting.add(socket);
    }
    const timer = setTimeout(
      () => {
        if (over) socket.destroy();
        else socket.end(RAW_408, () => socket.destroy());
      },
      over ? limits.overLimitGraceMs : limits.headersTimeoutMs,
    );
    timer.unref();
    silence.set(socket, timer);
    socket.once('close', () => {
      clearTimeout(timer);
      if (over || evicted.has(socket)) return;
      open -= 1;
      waiting.delete(socket);
      answering.delete(socket);
    });
  });
  // The first request head ends the silence; from then on Node's own timeouts apply. An unproven
  // socket's request moves it to `answering` until its answer is written (authorised() may prove
  // it before then), and back to the end of `waiting` after.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    clearTimeout(silence.get(socket));
    silence.delete(socket);
    if (!waiting.delete(socket)) return;
    answering.add(socket);
    res.once('finish', () => {
      if (answering.delete(socket)) waiting.add(socket);
    });
  });

  return {
    answerOverLimit(req, res) {
      if (!overLimit.has(req.socket)) return false;
      sendFailure(
        res,
        fail(
          'too-many-connections',
          `This app already serves ${limits.maxConnections} connections at once; close a tab or window that shows it, then try again.`,
        ),
        503,
        { Connection: 'close', 'Retry-After': '5' },
      );
      return true;
    },
    authorised(socket) {
      answering.delete(socket);
      waiting.delete(socket);
    },
    get open() {
      return open;
    },
  };
}
