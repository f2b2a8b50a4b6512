// The scalar ABI's conversion rules, checked on the host before any call reaches a worker.
// WebAssembly's own JS coercion would quietly wrap 2**31 to -2**31, turn "7" into 7 and 1.5 into 1;
// the spec wants a call that means something different to be refused instead, and refused the
// same way in Node and in a browser. So this file is the single definition of what an argument
// list may be, and every runtime (Node pool, browser Web Worker pool) calls it.

import type { WasmScalarType } from '../../protocol/manifest.ts';
import { fail, ok, type Result } from '../../protocol/result.ts';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export interface ScalarSignature {
  /** The guest-visible name, for messages. */
  readonly as: string;
  readonly params: readonly WasmScalarType[];
  readonly results: readonly WasmScalarType[];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'bigint') return 'a bigint';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function checkOne(type: WasmScalarType, value: unknown): string | undefined {
  if (typeof value !== 'number') return `expects a number, got ${describe(value)}`;
  if (type !== 'i32') return undefined; // f32/f64 take every number, NaN and ±Infinity included
  if (!Number.isInteger(value)) return `expects an i32 (an integer), got ${describe(value)}`;
  if (value < INT32_MIN || value > INT32_MAX) return `expects an i32 between ${INT32_MIN} and ${INT32_MAX}, got ${value}`;
  return undefined;
}

/**
 * Check a guest's argument list against an export's parameters. Returns a fresh plain array of
 * numbers (never the guest's object), or `wasm-argument` naming the export and the position.
 */
export function checkWasmArguments(sig: ScalarSignature, args: unknown): Result<number[], 'wasm-argument'> {
  if (!Array.isArray(args)) return fail('wasm-argument', `\`${sig.as}\` was called without an argument list`);
  if (args.length !== sig.params.length) {
    const want = sig.params.length;
    return fail('wasm-argument', `\`${sig.as}\` takes ${want} argument${want === 1 ? '' : 's'} (${sig.params.join(', ') || 'none'}), got ${args.length}`);
  }
  const out: number[] = [];
  for (let i = 0; i < sig.params.length; i++) {
    const type = sig.params[i] as WasmScalarType;
    const value: unknown = args[i];
    const problem = checkOne(type, value);
    if (problem) return fail('wasm-argument', `\`${sig.as}\` argument ${i + 1} ${problem}`);
    out.push(value as number);
  }
  return ok(out);
}

/**
 * Check what a worker sent back against the export's result type: a void export yields
 * `undefined`, a scalar export a number (an i32 an integer in range). A mismatch means the worker
 * or the engine misbehaved, so it is reported as `internal`, never passed to the guest.
 */
export function convertWasmResult(sig: ScalarSignature, value: unknown): Result<number | undefined, 'internal'> {
  const type = sig.results[0];
  if (type === undefined) return value === undefined ? ok(undefined) : fail('internal', `\`${sig.as}\` returned a value but is declared void`);
  const problem = checkOne(type, value);
  if (problem) return fail('internal', `\`${sig.as}\` returned an unexpected value: ${problem}`);
  return ok(value as number);
}
