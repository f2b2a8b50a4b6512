// Reads a request body under a byte limit. A declared Content-Length over the limit is refused
// before reading anything; a body that grows past it while streaming is cut off. Either way the
// caller gets `request-too-large` and the socket is not left half-read.

import type { IncomingMessage } from 'node:http';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { formatBytes } from '../../shared/protocol/limits.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Result<Buffer, 'request-too-large' | 'invalid-request'>> {
  // Built only when needed: formatting the limit costs more than reading a small body.
  const tooLarge = () => fail('request-too-large', `The request body is larger than the ${formatBytes(limit)} this server accepts.`);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve(tooLarge());
  // A declared length within the limit bounds the body (the parser frames it by that length), so
  // nothing can grow past the limit: read it with plain listeners, the common case and the cheap one.
  if (declared !== undefined) return readDeclared(req);
  return readStreamed(req, limit, tooLarge);
}

async function readStreamed(
  req: IncomingMessage,
  limit: number,
  tooLarge: () => Result<never, 'request-too-large'>,
): Promise<Result<Buffer, 'request-too-large' | 'invalid-request'>> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      // Leaving the loop destroys the request without its socket, so the 413 still goes out.
      if (size > limit) return tooLarge();
      chunks.push(buffer);
    }
  } catch {
    return unreadable();
  }
  return ok(Buffer.concat(chunks, size));
}

/**
 * The listeners stay on the request after it settles (it is this request's own object; removing
 * them measurably cost more than the read): `settled` keeps a late close from answering twice.
 */
function readDeclared(req: IncomingMessage): Promise<Result<Buffer, 'invalid-request'>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: Result<Buffer, 'invalid-request'>): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => finish(ok(Buffer.concat(chunks, size))));
    // An error, or a close before the end (the client went away mid-body).
    req.on('error', () => finish(unreadable()));
    req.on('close', () => finish(unreadable()));
  });
}

const unreadable = () => fail('invalid-request', 'The request body could not be read.');
