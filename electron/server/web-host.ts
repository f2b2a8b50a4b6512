// The web host: the same service contract the Electron window uses, over HTTP on 127.0.0.1, plus
// the built renderer and the browser runner's module delivery route. It is a real local attack
// surface (any web page the user opens can try to reach it), so every /api request passes the
// Host, Origin and token checks of request-guards.ts before anything else looks at it.
//
//   POST /api/rpc/:method          JSON body = the method's request; answer = its tagged result
//   GET  /api/events               Server-Sent Events: the contract's events
//   GET  /api/sandbox-modules/:id  module source by opaque id (see module-delivery.ts)
//   GET  /*                        the built renderer (static-files.ts)
// The server owns its sockets and SSE subscriptions; close() ends them all.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallContext, Dispatcher } from '../../shared/contract/dispatcher.ts';
import type { EventHub } from '../../shared/contract/events.ts';
import { fail } from '../../shared/protocol/result.ts';
import { DEFAULT_CONNECTION_LIMITS, gateConnections, serverTimeoutOptions, type ConnectionLimits } from './connection-limits.ts';
import { createEventStreams } from './event-stream.ts';
import { deliverModule, type DeliveryCatalog } from './module-delivery.ts';
import { isJsonContentType, requestGuards, type RequestGuards } from './request-guards.ts';
import { readBodyThen, MAX_BODY_BYTES, type BodyResult } from './request-body.ts';
import { sendFailure, sendJson, statusFor } from './responses.ts';
import { serveStatic } from './static-files.ts';

export interface WebHostOptions {
  readonly dispatcher: Dispatcher;
  readonly events: EventHub;
  readonly catalog: DeliveryCatalog;
  /** The Vite build output; undefined serves a page saying the renderer is not built. */
  readonly staticDir?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly maxBodyBytes?: number;
  /** Caps and timeouts; each unset field keeps its default (tests shorten them). */
  readonly limits?: Partial<ConnectionLimits>;
  readonly onBug?: (where: string, error: unknown) => void;
}

export interface WebHost {
  readonly port: number;
  readonly origin: string;
  /** The per-launch secret; API requests carry it as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** What to print and open: the page reads the token from the fragment (never sent to a server). */
  readonly url: string;
  close(): Promise<void>;
}

const RPC_PREFIX = '/api/rpc/';
/**
 * A service call's path as clients send it: one plain segment after the prefix, no query, no
 * percent-escapes, no dot segment. WHATWG URL parsing leaves such a path exactly as it is, so
 * the route skips building a URL for it (~10-30 µs a request); any other path goes through URL.
 */
const PLAIN_RPC_PATH = /^\/api\/rpc\/(?!\.\.?$)[A-Za-z0-9_.-]{1,64}$/;

/** True when `raw` is a plain RPC path that URL parsing would return unchanged. */
export function rpcPath(raw: string | undefined): raw is string {
  return raw !== undefined && PLAIN_RPC_PATH.test(raw);
}
const MODULE_PREFIX = '/api/sandbox-modules/';

/** Every service call over HTTP comes with the same context. */
const HTTP_CONTEXT: CallContext = Object.freeze({ face: 'http' });

/**
 * Statuses of POST /api/rpc/:method: 200 for every handler answer, failures included; 400 when the
 * request breaks the contract; 500 for a bug; the guards' own refusals are 401/403/405/413/415;
 * 503 for a connection over the cap of sockets that showed the token, 429 for an event stream over
 * the cap, 408 for a request head or body too slow (connection-limits.ts).
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = randomBytes(32).toString('base64url');
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const streams = createEventStreams(options.events, limits.maxEventStreams);
  const onBug = options.onBug ?? (() => {});
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  let port = 0;
  /** Made once the port is known (before the first request can arrive). */
  let guards: RequestGuards | undefined;

  const server = createServer(serverTimeoutOptions(limits), (req, res) => {
    if (gate.answerOverLimit(req, res)) return;
    try {
      // Only routes that wait answer with a promise (a service call answers through callbacks).
      route(req, res)?.catch((error: unknown) => failed(req, res, error));
    } catch (error) {
      failed(req, res, error);
    }
  });

  const gate = gateConnections(server, limits);

  /** A bug on the way to an answer: logged, and answered 500 if nothing was sent yet. */
  function failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    onBug(`${req.method ?? '?'} ${req.url ?? '?'}`, error);
    if (!res.headersSent) sendFailure(res, fail('internal', 'The request failed inside the app; the details are in its log.'));
    else res.destroy();
  }

  function route(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const check = guards as RequestGuards;
    const hostProblem = check.host(req);
    if (hostProblem) return sendFailure(res, hostProblem);
    // A plain service call's path is its own pathname (rpcPath); anything else is parsed as a URL.
    const url = rpcPath(req.url) ? undefined : new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const pathname = url ? url.pathname : (req.url as string);
    if (pathname !== '/api' && !pathname.startsWith('/api/')) return serveStatic(req, res, options.staticDir, pathname);

    const originProblem = check.origin(req);
    if (originProblem) return sendFailure(res, originProblem);
    const tokenProblem = check.token(req);
    if (tokenProblem) return sendFailure(res, tokenProblem, 401, { 'WWW-Authenticate': 'Bearer' });
    // The socket carries the token: sockets that have not shown it can no longer evict it.
    gate.authorised(req.socket);

    if (pathname.startsWith(RPC_PREFIX)) return rpc(req, res, pathname.slice(RPC_PREFIX.length));
    if (pathname === '/api/events') {
      if (req.method !== 'GET') return sendFailure(res, fail('invalid-request', 'Events are read with GET.'), 405);
      return streams.open(req, res);
    }
    if (pathname.startsWith(MODULE_PREFIX)) {
      const principal = { kind: 'browser' as const, origin: `http://127.0.0.1:${port}` };
      return deliverModule(req, res, options.catalog, pathname.slice(MODULE_PREFIX.length), url?.searchParams ?? new URLSearchParams(), principal);
    }
    return sendFailure(res, fail('not-found', `There is no API route ${pathname}.`));
  }

  function rpc(req: IncomingMessage, res: ServerResponse, method: string): void {
    if (req.method !== 'POST') return sendFailure(res, fail('invalid-request', 'Service methods are called with POST.'), 405);
    if (!isJsonContentType(req)) {
      return sendFailure(res, fail('invalid-request', 'The request body must be JSON (Content-Type: application/json).'), 415);
    }
    readBodyThen(req, maxBody, (body) => {
      try {
        call(req, res, method, body);
      } catch (error) {
        failed(req, res, error);
      }
    });
  }

  function call(req: IncomingMessage, res: ServerResponse, method: string, body: BodyResult): void {
    if (!body.ok) {
      // Do not read the rest of an oversized body: answer and close the connection.
      return sendFailure(res, body, statusFor(body.code), { Connection: 'close' });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.value.toString('utf8'));
    } catch {
      return sendFailure(res, fail('invalid-request', 'The request body is not valid JSON.'));
    }
    options.dispatcher.handle(method, payload, HTTP_CONTEXT).then(
      (result) => {
        // A handler's tagged failure (not-installed, busy, …) is an answer, not a transport error.
        const status = result.ok ? 200 : result.code === 'invalid-request' ? 400 : result.code === 'internal' ? 500 : 200;
        try {
          sendJson(res, status, result);
        } catch (error) {
          failed(req, res, error);
        }
      },
      (error: unknown) => failed(req, res, error),
    );
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      port = (server.address() as AddressInfo).port;
      guards = requestGuards(port, token);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${port}`;

  return {
    port,
    origin,
    token,
    url: `${origin}/#token=${token}`,
    async close() {
      streams.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
