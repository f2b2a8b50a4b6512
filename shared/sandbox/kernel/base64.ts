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

/**
 * Numbers JSON cannot carry (NaN, ±Infinity, -0) cross the bridge tagged, so an f64 WASM result
 * or argument keeps its value instead of turning into null or 0.
 */
export interface TaggedNumber {
  readonly __sandboxNumber: 'NaN' | 'Infinity' | '-Infinity' | '-0';
}

export function tagNumber(value: number): TaggedNumber | undefined {
  if (Number.isNaN(value)) return { __sandboxNumber: 'NaN' };
  if (value === Infinity) return { __sandboxNumber: 'Infinity' };
  if (value === -Infinity) return { __sandboxNumber: '-Infinity' };
  if (Object.is(value, -0)) return { __sandboxNumber: '-0' };
  return undefined;
}

/** The number a tag stands for, or undefined when `value` is not exactly a number tag. */
export function reviveNumber(value: unknown): number | undefined {
  if (value === null || typeof value !== 'object' || Object.keys(value).length !== 1) return undefined;
  const tag = (value as { __sandboxNumber?: unknown }).__sandboxNumber;
  if (tag === 'NaN') return Number.NaN;
  if (tag === 'Infinity') return Infinity;
  if (tag === '-Infinity') return -Infinity;
  if (tag === '-0') return -0;
  return undefined;
}

/** JSON replacer for host→guest values: bytes → tagged base64, non-JSON numbers → number tags. */
export function bytesReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number') return tagNumber(value) ?? value;
  if (value instanceof Uint8Array) return { __sandboxBytes: encodeBase64(value) } satisfies TaggedBytes;
  if (ArrayBuffer.isView(value))
    return { __sandboxBytes: encodeBase64(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) } satisfies TaggedBytes;
  return value;
}
