// Public entry of @nodetool-ai/sandbox-hash: a friendly face for the WASM sibling, which does the
// byte work on the host. Each function here is one WASM call (async, budgeted: 256 per run), so
// hash a whole buffer at once rather than calling in a loop. A string goes to the host as a
// string (the host encodes it as UTF-8), so nothing is encoded in the guest.

import {
  sha256 as sha256OfBytes,
  sha256Text,
  sha256Bytes,
  crc32 as crc32OfBytes,
  crc32Text,
  base64Encode,
  base64EncodeText,
  base64Decode,
} from '@nodetool-ai/sandbox-hash/wasm';

/** A TypeError for a value that is neither a string nor a Uint8Array. */
function notBytes(what, input) {
  return new TypeError(`${what} takes a string or a Uint8Array, got ${input === null ? 'null' : typeof input}`);
}

/** SHA-256 of a string (its UTF-8) or a Uint8Array, as 64 lowercase hex characters. */
export async function sha256(input) {
  if (typeof input === 'string') return sha256Text(input);
  if (input instanceof Uint8Array) return sha256OfBytes(input);
  throw notBytes('sha256', input);
}

/** SHA-256 of a Uint8Array, or of a string's UTF-8, as the raw 32-byte digest (a Uint8Array). */
export async function sha256Digest(input) {
  if (typeof input === 'string') return sha256Bytes(new TextEncoder().encode(input));
  if (input instanceof Uint8Array) return sha256Bytes(input);
  throw notBytes('sha256Digest', input);
}

/** CRC-32 (IEEE: as zlib, gzip, zip and PNG use) of a string (its UTF-8) or a Uint8Array, 0..2**32-1. */
export async function crc32(input) {
  if (typeof input === 'string') return (await crc32Text(input)) >>> 0;
  if (input instanceof Uint8Array) return (await crc32OfBytes(input)) >>> 0;
  throw notBytes('crc32', input);
}

/** Standard, padded base64 (RFC 4648) of a Uint8Array or of a string's UTF-8. */
export async function toBase64(input) {
  if (typeof input === 'string') return base64EncodeText(input);
  if (input instanceof Uint8Array) return base64Encode(input);
  throw notBytes('toBase64', input);
}

/** The bytes of standard, padded base64 text; anything else rejects with a `wasm-trap` error. */
export async function fromBase64(text) {
  if (typeof text !== 'string') throw new TypeError(`fromBase64 takes a string, got ${text === null ? 'null' : typeof text}`);
  return base64Decode(text);
}
