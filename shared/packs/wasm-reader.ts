// The byte-level half of WASM binary validation: a bounds-checked cursor over the binary, LEB128
// integers with the format's width rules, value types, limits and constant expressions. Every
// malformed read throws `WasmReject`, which wasm-binary.ts turns into a tagged result at its single
// entry point — so no read anywhere can run past the end or accept an over-long encoding silently.

import type { ErrorCode } from '../protocol/codes.ts';

/** Value type names as they appear in messages. */
export const VALTYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0x7f, 'i32'],
  [0x7e, 'i64'],
  [0x7d, 'f32'],
  [0x7c, 'f64'],
  [0x7b, 'v128'],
  [0x70, 'funcref'],
  [0x6f, 'externref'],
]);
/** Thrown inside the parser only; converted to a tagged result at the single entry point. */
export class WasmReject extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WasmReject';
  }
}

export const invalid = (message: string): never => {
  throw new WasmReject('wasm-invalid', message);
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class Reader {
  pos: number;
  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
    private readonly where: string,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  byte(): number {
    if (this.pos >= this.end) invalid(`${this.where} ends early (truncated)`);
    return this.bytes[this.pos++] as number;
  }

  skip(n: number): void {
    if (n > this.end - this.pos) invalid(`${this.where} ends early (truncated)`);
    this.pos += n;
  }

  /** Unsigned LEB128 of at most `bits` bits (32 or 64; 64-bit values are kept only when small). */
  uleb(bits: 32 | 64 = 32): number {
    const maxBytes = Math.ceil(bits / 7);
    let result = 0;
    let scale = 1;
    for (let i = 0; i < maxBytes; i++) {
      const b = this.byte();
      if (i === maxBytes - 1) {
        // The last permitted byte may not continue and may not set bits beyond the width.
        const unused = bits - 7 * i;
        if (b & 0x80 || b >> unused !== 0) invalid(`${this.where} has an over-long or out-of-range LEB128 integer`);
      }
      result += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) return result;
    }
    return invalid(`${this.where} has an over-long LEB128 integer`);
  }

  /** Signed LEB128 of at most `bits` bits; only skipped, so the value is not returned. */
  sleb(bits: 32 | 33 | 64): void {
    const maxBytes = Math.ceil(bits / 7);
    for (let i = 0; i < maxBytes; i++) {
      const b = this.byte();
      if (i === maxBytes - 1) {
        if (b & 0x80) invalid(`${this.where} has an over-long LEB128 integer`);
        // Remaining payload bits must all equal the sign bit.
        const used = bits - 7 * i; // bits this byte contributes, including the sign
        const rest = (b & 0x7f) >> (used - 1);
        const all = (1 << (8 - used)) - 1;
        if (rest !== 0 && rest !== all) invalid(`${this.where} has an out-of-range LEB128 integer`);
      }
      if ((b & 0x80) === 0) return;
    }
    invalid(`${this.where} has an over-long LEB128 integer`);
  }

  name(): string {
    const length = this.uleb();
    const start = this.pos;
    this.skip(length);
    try {
      return utf8.decode(this.bytes.subarray(start, start + length));
    } catch {
      return invalid(`${this.where} has a name that is not valid UTF-8`);
    }
  }

  /** A vector count, sanity-checked against the bytes left (each item takes at least one byte). */
  count(what: string): number {
    const n = this.uleb();
    if (n > this.end - this.pos) invalid(`${this.where} declares ${n} ${what} but has only ${this.end - this.pos} bytes left`);
    return n;
  }
}

/** A value type; only MVP numbers, v128 and the two basic reference types are accepted. */
export function readValType(r: Reader, where: string): string {
  const b = r.byte();
  const name = VALTYPE_NAMES.get(b);
  if (name === undefined) {
    throw new WasmReject('wasm-unsupported', `${where} uses value type 0x${b.toString(16)}, which v1 does not support`);
  }
  return name;
}

export interface Limits {
  readonly min: number;
  readonly max: number | undefined;
  readonly shared: boolean;
  readonly is64: boolean;
}

export function readLimits(r: Reader, where: string): Limits {
  const flags = r.byte();
  if (flags & ~0x07) invalid(`${where} has unknown limits flags 0x${flags.toString(16)}`);
  const is64 = (flags & 0x04) !== 0;
  const shared = (flags & 0x02) !== 0;
  const hasMax = (flags & 0x01) !== 0;
  const min = r.uleb(is64 ? 64 : 32);
  const max = hasMax ? r.uleb(is64 ? 64 : 32) : undefined;
  if (max !== undefined && max < min) invalid(`${where} has a maximum (${max}) below its minimum (${min})`);
  return { min, max, shared, is64 };
}

/** Skips a constant expression up to and including its `end`. */
export function skipConstExpr(r: Reader, where: string): void {
  for (;;) {
    const opcode = r.byte();
    switch (opcode) {
      case 0x0b:
        return;
      case 0x41: // i32.const
        r.sleb(32);
        break;
      case 0x42: // i64.const
        r.sleb(64);
        break;
      case 0x43: // f32.const
        r.skip(4);
        break;
      case 0x44: // f64.const
        r.skip(8);
        break;
      case 0x23: // global.get
      case 0xd2: // ref.func
        r.uleb();
        break;
      case 0xd0: // ref.null heaptype
        r.sleb(33);
        break;
      case 0x6a: case 0x6b: case 0x6c: // i32.add/sub/mul (extended-const)
      case 0x7c: case 0x7d: case 0x7e: // i64.add/sub/mul (extended-const)
        break;
      case 0xfd: // v128.const
        if (r.uleb() !== 12) invalid(`${where} has an initializer that is not a constant expression`);
        r.skip(16);
        break;
      default:
        invalid(`${where} has an initializer with opcode 0x${opcode.toString(16)}, which is not a constant expression`);
    }
  }
}
