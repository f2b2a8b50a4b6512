// Reads a request body under a byte limit. A declared Content-Length over the limit is refused
// before reading anything; a body that grows past it while streaming is cut off. Either way the
// caller gets `request-too-large` and the socket is not left half-read.

import type { IncomingMessage } from 'node:http';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { formatBytes } from '../../shared/protocol/limits.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Result<Buffer, 'request-too-large' | 'invalid-request'>> {
  const tooLarge = fail('request-too-large', `The request body is larger than the ${formatBytes(limit)} this server accepts.`);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return tooLarge;
  // A declared length within the limit bounds the body (the parser frames it by that length), so
  // nothing can grow past the limit: read it with plain listeners, the common case and the cheap one.
  if (declared !== undefined) return readDeclared(req);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      // Leaving the loop destroys the request without its socket, so the 413 still goes out.
      if (size > limit) return tooLarge;
      chunks.push(buffer);
    }
  } catch {
    return unreadable();
  }
  return ok(Buffer.concat(chunks, size));
}

function readDeclared(req: IncomingMessage): Promise<Result<Buffer, 'invalid-request'>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      chunks.push(chunk);
    };
    const finish = (result: Result<Buffer, 'invalid-request'>): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', onFailure);
      resolve(result);
    };
    const onEnd = (): void => finish(ok(Buffer.concat(chunks, size)));
    // An error, or a close before the end (the client went away mid-body).
    const onFailure = (): void => finish(unreadable());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('close', onFailure);
  });
}

const unreadable = () => fail('invalid-request', 'The request body could not be read.');
