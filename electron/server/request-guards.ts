// The checks that make a localhost HTTP server a deliberate surface rather than an open one:
// - Host must name our own listener (127.0.0.1:PORT or localhost:PORT): a DNS-rebinding page
//   reaches us under its own host name and is refused.
// - Origin, when a browser sends one, must be our own origin, and a cross-site Sec-Fetch-Site is
//   refused: another site's page cannot drive the API even blindly.
// - The per-launch token must come in the Authorization header. A header (not a cookie) cannot be
//   attached by a cross-site form or image, and we never answer CORS preflights. Compared in
//   constant time (timingSafeEqual) so its content does not leak through timing. Its length is
//   no secret (every token is 32 random bytes in base64url, 43 characters), so a presented token
//   of another length is refused without comparing; hashing both sides first, as this did before,
//   cost ~50 µs a request on a cold path and hid nothing more.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { fail, type Failure } from '../../shared/protocol/result.ts';

export function allowedHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): readonly string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

export function checkHost(req: IncomingMessage, port: number): Failure | undefined {
  const host = req.headers.host?.toLowerCase();
  if (host !== undefined && allowedHosts(port).includes(host)) return undefined;
  return fail('forbidden', `This server answers only requests addressed to 127.0.0.1:${port} or localhost:${port}.`);
}

export function checkOrigin(req: IncomingMessage, port: number): Failure | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedOrigins(port).includes(origin.toLowerCase())) {
    return fail('forbidden', 'Requests from other web sites are not allowed.');
  }
  if (req.headers['sec-fetch-site'] === 'cross-site') return fail('forbidden', 'Requests from other web sites are not allowed.');
  return undefined;
}

/** The token check for one server: the token's bytes are taken once, the presented ones per request. */
export function tokenCheck(token: string): (req: IncomingMessage) => Failure | undefined {
  const expected = Buffer.from(token, 'utf8');
  return (req) => {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{1,256})$/.exec(header) : null;
    // The pattern admits ASCII only, so characters and bytes agree.
    const presented = Buffer.from(match?.[1] ?? '', 'utf8');
    if (match && presented.length === expected.length && timingSafeEqual(presented, expected)) return undefined;
    return fail('unauthorized', 'This request needs the access token from the URL the app printed at start.');
  };
}

export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  if (typeof type !== 'string') return false;
  const [essence, ...params] = type.split(';').map((part) => part.trim().toLowerCase());
  if (essence !== 'application/json') return false;
  return params.every((param) => param === '' || param === 'charset=utf-8');
}
