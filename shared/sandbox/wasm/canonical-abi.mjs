// The canonical ABI's core lowering for one call, as the WebAssembly component model defines it
// (CanonicalABI.md: `lower_flat_values`, `store_list_into_range`, return areas, `post-return`),
// for the two types our bridge adds to the scalars: `bytes` (list<u8>) and `string` (UTF-8).
// It is plain ESM with no imports on purpose: the Node WASM worker (plain ESM, see
// electron/runtime/wasm/wasm-worker.mjs) and the browser's Web Worker (renderer/runner/
// wasm-worker.ts) run this same file, so both hosts lower, check and lift alike.
//
// One call on one fresh instance, nothing kept:
//   1. each `bytes`/`string` argument (already UTF-8 bytes, checked against the byte budgets by
//      the dispatcher): `ptr = cabi_realloc(0, 0, 1, len)`, the range checked to lie inside
//      memory, the bytes written; it becomes the pair (ptr, len) of i32 arguments;
//   2. the export is called with the flat arguments;
//   3. a `bytes`/`string` result comes back through a return area: the export returns an i32
//      pointer, 4-aligned, to two little-endian u32s (ptr, len); the length is checked against
//      the call's output allowance and the range against memory *before* anything is copied;
//   4. `cabi_post_<export>` is called with the export's core result when the module exports it.
// A `string` result comes back as its bytes; the dispatcher decodes it and refuses bytes that are
// not UTF-8 (the canonical ABI traps on those; so do we), so the host counts the bytes it copied.
// A violation is thrown as a WebAssembly.RuntimeError with a sentence, which both workers report
// as `wasm-trap` like an engine trap; a result over the call's allowance is an OutputTooLarge,
// reported as `wasm-budget-bytes`.
//
// Memory is re-read after every call into the module: `cabi_realloc` may grow it (which detaches
// the old buffer), and a module may grow it to its maximum in the middle of a copy.

/** The types a call's ABI may name; bytes and strings are the ones lowered through memory. */
const TYPES = new Set(['i32', 'f32', 'f64', 'bytes', 'string']);
const isByteType = (t) => t === 'bytes' || t === 'string';

/** A result longer than the call may return, found before anything was copied. */
export class OutputTooLarge extends Error {
  constructor(message) {
    super(message);
    this.name = 'OutputTooLarge';
  }
}

/** A canonical-ABI violation, reported like a trap. */
function violation(message) {
  return new WebAssembly.RuntimeError(message);
}

function memoryOf(exports, name) {
  const memory = exports.memory;
  if (!(memory instanceof WebAssembly.Memory)) throw violation(`\`${name}\` needs the module's exported memory, and it has none`);
  return memory;
}

/** `[start, start + len)` must lie inside `memory` now; `what` names it in the sentence. */
function checkRange(memory, start, len, what) {
  const size = memory.buffer.byteLength;
  if (!Number.isInteger(start) || start < 0 || !Number.isInteger(len) || len < 0 || start + len > size) {
    throw violation(`${what} (${start}, ${len} bytes) lies outside the module's memory of ${size} bytes`);
  }
}

/** Copy `bytes` into the instance through its `cabi_realloc`; returns the pointer. */
function lowerBytes(exports, memory, name, position, bytes) {
  const realloc = exports.cabi_realloc;
  if (typeof realloc !== 'function') throw violation(`\`${name}\` needs the module's \`cabi_realloc\`, and it has none`);
  // list<u8> and UTF-8 strings have alignment 1, so every pointer is aligned.
  const ptr = realloc(0, 0, 1, bytes.length) >>> 0;
  checkRange(memory, ptr, bytes.length, `cabi_realloc's answer for argument ${position} of \`${name}\``);
  new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

/**
 * Read a (ptr, len) pair from the return area the export answered with, check it, and copy the
 * bytes out (a copy: the instance is dropped after the call).
 */
function liftBytes(memory, name, retptr, maxBytes) {
  if (retptr % 4 !== 0) throw violation(`\`${name}\` returned a return area at ${retptr}, which is not 4-byte aligned`);
  checkRange(memory, retptr, 8, `the return area of \`${name}\``);
  const view = new DataView(memory.buffer);
  const ptr = view.getUint32(retptr, true);
  const len = view.getUint32(retptr + 4, true);
  if (len > maxBytes)
    throw new OutputTooLarge(`\`${name}\` returned ${len} bytes, more than the ${maxBytes} bytes this call may return (budget: output bytes)`);
  checkRange(memory, ptr, len, `the result of \`${name}\``);
  return new Uint8Array(memory.buffer, ptr, len).slice();
}

/**
 * Run export `exportName` of `instance` with `args`. Without `abi` the export is scalar: the
 * numbers are passed as they are and its value is returned. With `abi` (`{ name, params, result,
 * post, maxResultBytes }`, from the validated manifest declaration), `args` hold a number for each
 * scalar parameter and a Uint8Array for each `bytes`/`string` one; the result is a number,
 * undefined, or a Uint8Array of its own (`bytes` and `string`: the string's UTF-8, unchecked).
 * Sentences name the export as the guest knows it (`abi.name`, the manifest's `as`), not by the
 * binary's name, which the guest never sees.
 */
export function invokeExport(instance, exportName, args, abi) {
  const exports = instance.exports;
  const fn = exports[exportName];
  if (typeof fn !== 'function') throw new TypeError(`export ${exportName} is not a function`);
  if (abi === undefined) return fn(...args);

  const name = abi.name;
  const byteResult = isByteType(abi.result);
  const needsMemory = byteResult || abi.params.some(isByteType);
  const memory = needsMemory ? memoryOf(exports, name) : undefined;
  const flat = [];
  for (let i = 0; i < abi.params.length; i++) {
    const type = abi.params[i];
    const arg = args[i];
    if (isByteType(type)) {
      if (!(arg instanceof Uint8Array)) throw new TypeError(`argument ${i + 1} of ${name} must arrive as bytes`);
      flat.push(lowerBytes(exports, memory, name, i + 1, arg), arg.length);
    } else {
      if (typeof arg !== 'number') throw new TypeError(`argument ${i + 1} of ${name} must arrive as a number`);
      flat.push(arg);
    }
  }
  const core = fn(...flat);
  if (!byteResult) {
    if (abi.post !== undefined) exports[abi.post](...(core === undefined ? [] : [core]));
    return core;
  }
  const bytes = liftBytes(memory, name, core >>> 0, abi.maxResultBytes);
  if (abi.post !== undefined) exports[abi.post](core);
  return bytes;
}

/** The reply code for what `invokeExport` threw: the module's doing (a trap, a budget), or ours. */
export function failureCode(error) {
  if (error instanceof OutputTooLarge) return 'wasm-budget-bytes';
  // RuntimeError: traps (unreachable, divide by zero, out of bounds) and ABI violations.
  // RangeError: the engine ran out of stack or could not allocate the declared memory.
  return error instanceof WebAssembly.RuntimeError || error instanceof RangeError ? 'wasm-trap' : 'internal';
}

/** True when `abi` is the shape `invokeExport` takes (the workers check inbound messages by hand). */
export function isCallAbi(abi) {
  return (
    abi !== null &&
    typeof abi === 'object' &&
    typeof abi.name === 'string' &&
    abi.name.length <= 128 &&
    Array.isArray(abi.params) &&
    abi.params.length <= 8 &&
    abi.params.every((t) => TYPES.has(t)) &&
    (abi.result === undefined || TYPES.has(abi.result)) &&
    (abi.post === undefined || (typeof abi.post === 'string' && abi.post.startsWith('cabi_post_'))) &&
    Number.isSafeInteger(abi.maxResultBytes) &&
    abi.maxResultBytes >= 0
  );
}

/** An argument list a call message may carry: numbers, and Uint8Arrays for bytes and strings. */
export function isCallArgs(args) {
  return Array.isArray(args) && args.every((a) => typeof a === 'number' || a instanceof Uint8Array);
}
