// The bridge's conversion rules, checked on the host before any call reaches a worker: the scalar
// ABI's, and for typed exports `bytes` (a Uint8Array, copied as it is) and `string` (encoded UTF-8
// here; a lone surrogate becomes U+FFFD, as TextEncoder does).
// WebAssembly's own JS coercion would quietly wrap 2**31 to -2**31, turn "7" into 7 and 1.5 into 1;
// the spec wants a call that means something different to be refused instead, and refused the
// same way in Node and in a browser. So this file is the single definition of what an argument
// list may be, and every runtime (Node pool, browser Web Worker pool) calls it.

import { isByteType, type WasmValueType } from '../../protocol/manifest.ts';
import { fail, ok, type Result } from '../../protocol/result.ts';
import type { CallArg } from './canonical-abi.mjs';

const utf8 = new TextEncoder();

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export interface ScalarSignature {
  /** The guest-visible name, for messages. */
  readonly as: string;
  readonly params: readonly WasmValueType[];
  readonly results: readonly WasmValueType[];
}

/**
 * A typed array other than a Uint8Array, as the guest's fast path names it (never its bytes). A
 * plain object, so that it reads the same after a structured clone (the browser runner's kernel
 * and dispatcher are in different threads); it only ever words a refusal.
 */
export interface NotBytes {
  readonly notBytes: string;
}

const isNotBytes = (value: object): value is NotBytes => {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'notBytes' && typeof (value as { notBytes?: unknown }).notBytes === 'string';
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object' && isNotBytes(value)) return `a ${value.notBytes}`;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'bigint') return 'a bigint';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (value instanceof ArrayBuffer) return 'an ArrayBuffer';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function checkOne(type: WasmValueType, value: unknown): string | undefined {
  if (type === 'bytes') return value instanceof Uint8Array ? undefined : `expects a Uint8Array, got ${describe(value)}`;
  if (type === 'string') return typeof value === 'string' ? undefined : `expects a string, got ${describe(value)}`;
  if (typeof value !== 'number') return `expects a number, got ${describe(value)}`;
  if (type !== 'i32') return undefined; // f32/f64 take every number, NaN and ±Infinity included
  if (!Number.isInteger(value)) return `expects an i32 (an integer), got ${describe(value)}`;
  if (value < INT32_MIN || value > INT32_MAX) return `expects an i32 between ${INT32_MIN} and ${INT32_MAX}, got ${value}`;
  return undefined;
}

/**
 * Check a guest's argument list against an export's parameters. Returns a fresh plain array of
 * numbers, and bytes for `bytes`/`string` parameters (a string encoded as UTF-8), never the
 * guest's object; or `wasm-argument` naming the export and the position.
 */
export function checkWasmArguments(sig: ScalarSignature, args: unknown): Result<CallArg[], 'wasm-argument'> {
  if (!Array.isArray(args)) return fail('wasm-argument', `\`${sig.as}\` was called without an argument list`);
  if (args.length !== sig.params.length) {
    const want = sig.params.length;
    return fail('wasm-argument', `\`${sig.as}\` takes ${want} argument${want === 1 ? '' : 's'} (${sig.params.join(', ') || 'none'}), got ${args.length}`);
  }
  const out: CallArg[] = [];
  for (let i = 0; i < sig.params.length; i++) {
    const type = sig.params[i] as WasmValueType;
    const value: unknown = args[i];
    const problem = checkOne(type, value);
    if (problem) return fail('wasm-argument', `\`${sig.as}\` argument ${i + 1} ${problem}`);
    out.push(type === 'string' ? utf8.encode(value as string) : (value as CallArg));
  }
  return ok(out);
}

/** What a WASM call answers the guest: a number, nothing, a bytes result or a string result. */
export type WasmValue = number | undefined | Uint8Array | string;

/**
 * Check what a worker sent back against a scalar or void export's result type: a void export
 * yields `undefined`, a scalar export a number (an i32 an integer in range). A mismatch means the
 * worker or the engine misbehaved, so it is reported as `internal`, never passed to the guest.
 * (A bytes or string result is lifted by the dispatcher, which counts and decodes it.)
 */
export function convertWasmResult(sig: ScalarSignature, value: unknown): Result<number | undefined, 'internal'> {
  const type = sig.results[0];
  if (type === undefined) return value === undefined ? ok(undefined) : fail('internal', `\`${sig.as}\` returned a value but is declared void`);
  if (isByteType(type)) return fail('internal', `\`${sig.as}\` returns ${type}, which the dispatcher lifts, not this check`);
  const problem = checkOne(type, value);
  if (problem) return fail('internal', `\`${sig.as}\` returned an unexpected value: ${problem}`);
  return ok(value as number);
}
