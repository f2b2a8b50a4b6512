// Node's side of the injected hash: shared/ code builds the bytes, this hashes them.
import { createHash } from 'node:crypto';

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
