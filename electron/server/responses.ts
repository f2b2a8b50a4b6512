// How the web host answers: every /api error is a tagged failure in JSON with a status that fits
// it, and every response carries the same defensive headers. No CORS headers are ever sent, so a
// browser refuses to hand any /api answer to another origin's script.

import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import type { Failure } from '../../shared/protocol/result.ts';

/** Status for a failure that a route or the dispatcher produced. */
const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  'invalid-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'request-too-large': 413,
  'stale-digest': 409,
  internal: 500,
};

export function statusFor(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 200;
}

export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The headers of every JSON answer but its length, as the flat list writeHead takes (built once). */
const JSON_HEADERS: readonly string[] = Object.entries({
  ...BASE_HEADERS,
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
}).flat();

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  const text = JSON.stringify(body);
  const list = [...JSON_HEADERS, 'Content-Length', String(Buffer.byteLength(text))];
  if (headers) for (const [name, value] of Object.entries(headers)) list.push(name, value);
  res.writeHead(status, list);
  res.end(text);
}

export function sendFailure(res: ServerResponse, failure: Failure, status = statusFor(failure.code), headers?: Readonly<Record<string, string>>): void {
  sendJson(res, status, { ok: false, code: failure.code, message: failure.message }, headers);
}
