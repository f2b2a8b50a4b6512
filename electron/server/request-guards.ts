// The checks that make a localhost HTTP server a deliberate surface rather than an open one:
// - Host must name our own listener (127.0.0.1:PORT or localhost:PORT): a DNS-rebinding page
//   reaches us under its own host name and is refused.
// - Origin, when a browser sends one, must be our own origin, and a cross-site Sec-Fetch-Site is
//   refused: another site's page cannot drive the API even blindly.
// - The per-launch token must come in the Authorization header. A header (not a cookie) cannot be
//   attached by a cross-site form or image, and we never answer CORS preflights. Compared in
//   constant time (timingSafeEqual) so its content does not leak through timing.
// Each check is built once per server (requestGuards), so a request costs a few string
// comparisons, the presented header's bytes and one constant-time compare.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { fail, type Failure } from '../../shared/protocol/result.ts';

function allowedHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

function allowedOrigins(port: number): readonly string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

export interface RequestGuards {
  /** Host names our own listener (compared without case). */
  host(req: IncomingMessage): Failure | undefined;
  /** No Origin or our own (without case), and no cross-site Sec-Fetch-Site. */
  origin(req: IncomingMessage): Failure | undefined;
  /** `Authorization: Bearer <token>`, exactly, compared in constant time. */
  token(req: IncomingMessage): Failure | undefined;
}

/**
 * The guards of one server listening on `port` with this per-launch `token`: the allowed hosts,
 * origins and the expected Authorization header are made here, once the port is known. The
 * token's length is no secret (every token is 32 random bytes in base64url, 43 characters), so a
 * presented header of another length is refused without comparing.
 */
export function requestGuards(port: number, token: string): RequestGuards {
  const [host127, hostLocal] = allowedHosts(port) as [string, string];
  const [origin127, originLocal] = allowedOrigins(port) as [string, string];
  const isOurs = (value: string, a: string, b: string): boolean => {
    if (value === a || value === b) return true;
    const lower = value.toLowerCase();
    return lower === a || lower === b;
  };
  // The whole header, scheme included: the same acceptance as matching `Bearer (token)` and
  // comparing the token, since the token is base64url (ASCII) and "Bearer " is fixed.
  const expected = Buffer.from(`Bearer ${token}`, 'utf8');
  return {
    host(req) {
      const host = req.headers.host;
      if (host !== undefined && isOurs(host, host127, hostLocal)) return undefined;
      return fail('forbidden', `This server answers only requests addressed to 127.0.0.1:${port} or localhost:${port}.`);
    },
    origin(req) {
      const origin = req.headers.origin;
      if (origin !== undefined && !isOurs(origin, origin127, originLocal)) return fail('forbidden', 'Requests from other web sites are not allowed.');
      if (req.headers['sec-fetch-site'] === 'cross-site') return fail('forbidden', 'Requests from other web sites are not allowed.');
      return undefined;
    },
    token(req) {
      const header = req.headers.authorization;
      // Characters first (no bytes made for a header that cannot match), then the bytes: a
      // non-ASCII character makes more bytes than characters, so such a header fails the length.
      if (typeof header === 'string' && header.length === expected.length) {
        const presented = Buffer.from(header, 'utf8');
        if (presented.length === expected.length && timingSafeEqual(presented, expected)) return undefined;
      }
      return fail('unauthorized', 'This request needs the access token from the URL the app printed at start.');
    },
  };
}

/** The content types clients send, taken without splitting (isJsonContentType's answer for them is true). */
const PLAIN_JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  if (typeof type !== 'string') return false;
  if (PLAIN_JSON_TYPES.has(type)) return true;
  const [essence, ...params] = type.split(';').map((part) => part.trim().toLowerCase());
  if (essence !== 'application/json') return false;
  return params.every((param) => param === '' || param === 'charset=utf-8');
}
