// Bounds on what one client can hold open on the web host. Any local process or web page can
// connect to 127.0.0.1 without the token, so without bounds it could hold sockets until the app
// runs out of file descriptors: Node's headersTimeout only starts once the first byte arrives, so
// a socket that never sends anything was held forever (300 such sockets were, before this).
//
// - A socket must send a complete request head within `headersTimeoutMs` of connecting: Node
//   answers 408 once bytes have arrived; for a silent socket we write the same 408 ourselves.
// - At most `maxConnections` sockets are served. One over the cap is not refused silently: if it
//   sends a request within `overLimitGraceMs` it is answered 503 with a sentence and closed
//   (answerOverLimit), else dropped. Node's own maxConnections (four times ours) is the hard
//   backstop for a flood faster than the grace.

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
  readonly open: number;
}

export function gateConnections(server: Server, limits: ConnectionLimits): ConnectionGate {
  const overLimit = new WeakSet<Socket>();
  const silence = new WeakMap<Socket, NodeJS.Timeout>();
  let open = 0;
  server.maxConnections = limits.maxConnections * 4;

  server.on('connection', (socket: Socket) => {
    open += 1;
    const over = open > limits.maxConnections;
    if (over) overLimit.add(socket);
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
      open -= 1;
      clearTimeout(timer);
    });
  });
  // The first request head ends the silence; from then on Node's own timeouts apply.
  server.prependListener('request', (req: IncomingMessage) => {
    clearTimeout(silence.get(req.socket));
    silence.delete(req.socket);
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
    get open() {
      return open;
    },
  };
}
