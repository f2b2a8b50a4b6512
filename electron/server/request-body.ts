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
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > limit) return tooLarge;
      chunks.push(buffer);
    }
  } catch {
    return fail('invalid-request', 'The request body could not be read.');
  }
  return ok(Buffer.concat(chunks, size));
}
