// Reads a request body under a byte limit. A declared Content-Length over the limit is refused
// before reading anything; a body that grows past it while streaming is cut off. Either way the
// caller gets `request-too-large` and the socket is not left half-read.

import type { IncomingMessage } from 'node:http';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { formatBytes } from '../../shared/protocol/limits.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyResult = Result<Buffer, 'request-too-large' | 'invalid-request'>;

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  return new Promise((resolve) => readBodyThen(req, limit, resolve));
}

/**
 * readBody with a callback, called once: the web host's service calls take this, one promise and
 * one microtask hop fewer a request than awaiting readBody.
 */
export function readBodyThen(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return done(tooLarge(limit));
  // A declared length within the limit bounds the body (the parser frames it by that length), so
  // nothing can grow past the limit: read it with plain listeners, the common case and the cheap one.
  if (declared !== undefined) return readDeclared(req, done);
  void readStreamed(req, limit).then(done);
}

// Built only when needed: formatting the limit costs more than reading a small body.
const tooLarge = (limit: number) => fail('request-too-large', `The request body is larger than the ${formatBytes(limit)} this server accepts.`);

async function readStreamed(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      // Leaving the loop destroys the request without its socket, so the 413 still goes out.
      if (size > limit) return tooLarge(limit);
      chunks.push(buffer);
    }
  } catch {
    return unreadable();
  }
  return ok(Buffer.concat(chunks, size));
}

/**
 * The listeners stay on the request after it settles (it is this request's own object; removing
 * them measurably cost more than the read): `settled` keeps a late close from answering twice. A
 * body that came in one chunk (a service call's always does) is handed on as it is, not copied.
 */
function readDeclared(req: IncomingMessage, done: (result: BodyResult) => void): void {
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let settled = false;
  const finish = (result: BodyResult): void => {
    if (settled) return;
    settled = true;
    done(result);
  };
  req.on('data', (chunk: Buffer) => {
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  });
  req.on('end', () => finish(ok(more ? Buffer.concat(more) : (first ?? EMPTY))));
  // An error, or a close before the end (the client went away mid-body).
  req.on('error', () => finish(unreadable()));
  req.on('close', () => finish(unreadable()));
}

const EMPTY = Buffer.alloc(0);
const unreadable = () => fail('invalid-request', 'The request body could not be read.');
