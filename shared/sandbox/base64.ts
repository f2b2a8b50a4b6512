// Base64 for the host side of the bridge: host→guest bytes travel as tagged base64 (spec Fact 7).
// Written out rather than borrowed from Buffer or btoa so the kernel stays environment-neutral
// and large payloads do not go through a binary string.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const n = (a << 16) | (b << 8) | c;
    chunk += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    chunk += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : '=';
    chunk += i + 2 < bytes.length ? ALPHABET[n & 63]! : '=';
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}

/** The tagged form bytes take on their way into the guest. */
export interface TaggedBytes {
  readonly __sandboxBytes: string;
}

/** JSON replacer: Uint8Array (and other views) → tagged base64. */
export function bytesReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { __sandboxBytes: encodeBase64(value) } satisfies TaggedBytes;
  if (ArrayBuffer.isView(value)) return { __sandboxBytes: encodeBase64(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) } satisfies TaggedBytes;
  return value;
}
