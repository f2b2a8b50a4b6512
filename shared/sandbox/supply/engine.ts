// The quickjs-ng engine as the kernel receives it: one WebAssembly instance with its own bounded
// linear memory, made from a `WebAssembly.Module` that each thread compiles once. A sandbox worker
// keeps one instance per sandbox and restores its memory to a snapshot after each run
// (sandbox-supply.ts); the admission probe takes a new one per probe (EngineSupply,
// electron/compiler/engine-supply.ts). Compiling is the expensive step, instantiating a compiled
// module is not (figures: docs/performance.md).
//
// Invariant: one engine runs one guest, in a linear memory capped at the guest limit plus the
// engine's own baseline (`boundedMemory`): that cap is what makes the 64 MB guest bound real.

import { QuickJSWASMModule, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { LIMITS } from '../../protocol/limits.ts';

export const PAGE = 64 * 1024;
/** The engine's own baseline (its initial memory), before any guest allocates. */
export const ENGINE_BASE_PAGES = 256;
/** Slack for the runtime's own structures around the guest's heap. */
const SLACK_PAGES = 256;
export const ENGINE_MAX_PAGES = ENGINE_BASE_PAGES + LIMITS.guestMemoryBytes / PAGE + SLACK_PAGES;

/** One engine instance and its linear memory (whose size is the engine's footprint). */
export interface BoundedEngine {
  readonly engine: QuickJSWASMModule;
  readonly memory: WebAssembly.Memory;
}

/**
 * A new memory for one engine instance: its baseline, growing at most to the guest limit's bound.
 * This quickjs-ng build enforces `setMemoryLimit` per allocation only (measured, see
 * docs/performance.md): unbounded, a loop of allocations each under the limit grows the engine's
 * linear memory to its 2 GB maximum before failing. Capped here, an over-limit guest gets "out of
 * memory" within milliseconds, and the cap holds because one engine runs one guest.
 */
export function boundedMemory(): WebAssembly.Memory {
  const memory = new WebAssembly.Memory({ initial: ENGINE_BASE_PAGES, maximum: ENGINE_MAX_PAGES });
  // The glue grows the engine's memory through this object's `grow` (its heap resize, inside a
  // try: a throw is an allocation that fails, which the engine answers as out of memory). While
  // `refuseGrowth` holds for it, it does not grow (see there).
  Object.defineProperty(memory, 'grow', {
    value: (delta: number): number => {
      if (growthRefused.has(memory)) throw new RangeError('the sandbox may not grow its memory now');
      return WebAssembly.Memory.prototype.grow.call(memory, delta);
    },
  });
  return memory;
}

const growthRefused = new WeakSet<WebAssembly.Memory>();

/**
 * Lets an engine memory grow or not. A nested run (kernel-worker-loop.ts) runs with growth refused
 * until it commits: grown, its sandbox could not be restored and its worker would take no other
 * nested run until its long run ended (issue 30: two memory bombs run nested closed both workers
 * hosting a storm's CPU loops). Refused, it runs out of memory at the sandbox's initial size instead,
 * and is given back to run as its own run with the whole guest limit.
 */
export function refuseGrowth(memory: WebAssembly.Memory, refused: boolean): void {
  if (refused) growthRefused.add(memory);
  else growthRefused.delete(memory);
}

/** Compiles the engine's binary (the bytes of `emscripten-module.wasm`); once per thread. */
export function compileQuickJsNg(bytes: BufferSource): Promise<WebAssembly.Module> {
  return WebAssembly.compile(bytes);
}

type FfiClass = Awaited<ReturnType<QuickJSSyncVariant['importFFI']>>;
type EmscriptenModule = ConstructorParameters<FfiClass>[0];
/** The emscripten glue's factory, as the variant exports it. */
type EmscriptenFactory = (options: Record<string, unknown>) => Promise<EmscriptenModule>;

let loaded: Promise<{ readonly factory: EmscriptenFactory; readonly ffiClass: FfiClass }> | undefined;

/**
 * Every string the host reads out of the guest (`getString`, `dump`: a capability's or a WASM
 * export's string argument, a log line, an error message) goes through the glue's `UTF8ToString`,
 * whose TextDecoder strips a leading U+FEFF — "\uFEFFab" would arrive as "ab", one character
 * silently gone. This replaces it with the same decoding (replacement characters for bad bytes,
 * which the engine's own strings never have) that keeps the character.
 */
export function keepLeadingByteOrderMark(emscripten: Pick<EmscriptenModule, 'HEAPU8' | 'UTF8ToString'>): void {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  emscripten.UTF8ToString = (ptr, maxBytesToRead) => {
    if (!ptr) return '';
    // HEAPU8 is read at every call: the glue replaces it when the memory grows.
    const heap = emscripten.HEAPU8;
    const limit = maxBytesToRead === undefined ? heap.length : Math.min(heap.length, ptr + maxBytesToRead);
    const nul = heap.indexOf(0, ptr);
    return decoder.decode(heap.subarray(ptr, nul < 0 || nul > limit ? limit : nul));
  };
}

/** What a host-side allocation in a full engine throws (quickjs-emscripten's staging would write through 0). */
export const ENGINE_FULL_MESSAGE = "the sandbox's memory is full";

/**
 * quickjs-emscripten stages every value the host hands the guest (an ArrayBuffer's bytes, a
 * string's UTF-8) in a block from the glue's `_malloc`, and does not check it: when the engine's
 * bounded memory is full, `_malloc` answers 0 and the bytes are written over the engine's memory
 * from address 0 (seen: a WASM bytes result near the guest limit overwrote the engine's low
 * memory, then trapped). The engine's own allocations do not pass through this export, so
 * guarding it touches only the host's staging: a failed one throws, and the caller answers the
 * guest instead of corrupting its engine.
 */
export function guardHostAllocations(emscripten: { _malloc: (size: number) => number }): void {
  const malloc = emscripten._malloc.bind(emscripten);
  emscripten._malloc = (size: number) => {
    const ptr = malloc(size);
    if (ptr === 0 && size !== 0) throw new RangeError(ENGINE_FULL_MESSAGE);
    return ptr;
  };
}

/**
 * The variant's glue and FFI, imported once per thread. The stock path
 * (`newQuickJSWASMModuleFromVariant`) imports both and a module of its own on every
 * instantiation; each dynamic import is a loader round trip (under tsx, a hop to its hooks
 * thread), paid once here instead.
 */
function loadedVariant(): Promise<{ readonly factory: EmscriptenFactory; readonly ffiClass: FfiClass }> {
  loaded ??= Promise.all([variant.importModuleLoader(), variant.importFFI()]).then(([loader, ffiClass]) => {
    const unwrapped = (loader as unknown as { default?: unknown }).default ?? loader;
    return { factory: unwrapped as unknown as EmscriptenFactory, ffiClass };
  });
  return loaded;
}

/**
 * A new engine instance of a compiled module, with bounded memory: new, or `recycled` — a memory
 * an earlier instance used, which the caller has zeroed whole and which is still at its initial
 * size (see memory-snapshot.ts `zeroedForReuse`), so the instance cannot tell it from a new one. Nothing outside the
 * returned object refers to it (quickjs-emscripten keeps no registry of modules), so dropping it
 * lets the instance be collected. Built as `newQuickJSWASMModuleFromVariant` builds one, minus
 * its per-call imports, and instantiated synchronously from the compiled module.
 */
export async function instantiateQuickJsNg(wasmModule: WebAssembly.Module, recycled?: WebAssembly.Memory): Promise<BoundedEngine> {
  const memory = recycled ?? boundedMemory();
  const { factory, ffiClass } = await loadedVariant();
  // The glue is given its compiled module and its memory, so it needs nothing from Node. Told it
  // is not in Node (the check reads `process.type` once, synchronously, at the factory's start;
  // Electron's renderer sets the same), it skips a per-instance `import("node:module")` (a loader
  // round trip, measured 0.6 ms under tsx) and its fs/argv setup, and an engine `exit` throws
  // instead of setting the process's exit code.
  const proc = globalThis.process as { type?: unknown } | undefined;
  const pretend = proc !== undefined && !Object.hasOwn(proc, 'type');
  if (pretend) proc.type = 'renderer';
  const pending = factory({
    wasmMemory: memory,
    instantiateWasm: (imports: WebAssembly.Imports, onSuccess: (instance: WebAssembly.Instance, module: WebAssembly.Module) => unknown) => {
      const instance = new WebAssembly.Instance(wasmModule, imports);
      onSuccess(instance, wasmModule);
      return instance.exports;
    },
  });
  if (pretend) delete proc.type;
  const emscripten = await pending;
  emscripten.type = 'sync';
  keepLeadingByteOrderMark(emscripten);
  guardHostAllocations(emscripten as unknown as { _malloc: (size: number) => number });
  const engine = new QuickJSWASMModule(emscripten, new ffiClass(emscripten));
  return { engine, memory };
}
