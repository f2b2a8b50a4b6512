// The quickjs-ng engine as the kernel receives it: one WebAssembly instance with its own bounded
// linear memory, made from a `WebAssembly.Module` that each thread compiles once. Production
// workers make one instance per run (engine-supply.ts says why); compiling is the expensive step
// (tens of ms), instantiating a compiled module is not (about a millisecond).
//
// The engine gets its own bounded WebAssembly.Memory. Measured here: this quickjs-ng build
// enforces `setMemoryLimit` per allocation only — 30 × 4 MB typed arrays or strings under a
// 64 MB limit all succeed, and a loop of them grows the engine's linear memory to its 2 GB
// maximum before failing. Capping the linear memory at the guest limit plus the engine's own
// baseline makes the 64 MB bound real (an over-limit guest gets "out of memory" within
// milliseconds), and the cap holds because one engine runs one guest.

import { newQuickJSWASMModuleFromVariant, newVariant, QuickJSWASMModule, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { LIMITS } from '../protocol/limits.ts';

const PAGE = 64 * 1024;
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

function boundedMemory(): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: ENGINE_BASE_PAGES, maximum: ENGINE_MAX_PAGES });
}

/**
 * Makes a used engine's memory fit for a new instance: every byte zeroed, as a new memory's are
 * (about 0.4 ms for the 16 MB). Undefined for a memory that has grown past its initial size: a
 * new instance must not start with more room than a new memory gives, so that one is dropped.
 * Why recycle at all: a new 16 MB memory per run is external memory V8 answers with about one
 * garbage collection per instance; instantiating on a zeroed memory measured 0.3 ms against
 * 1.5–4 ms on a new one (scripts/bench/kernel.ts, engine rows).
 */
export function zeroedForReuse(memory: WebAssembly.Memory): WebAssembly.Memory | undefined {
  if (memory.buffer.byteLength !== ENGINE_BASE_PAGES * PAGE) return undefined;
  new Uint8Array(memory.buffer).fill(0);
  return memory;
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
 * size (see `zeroedForReuse`), so the instance cannot tell it from a new one. Nothing outside the
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
  const engine = new QuickJSWASMModule(emscripten, new ffiClass(emscripten));
  return { engine, memory };
}

/**
 * A new engine instance that the variant's own glue loads and compiles from its .wasm file: for
 * tests, which have no compiled module at hand. Workers use an EngineSupply instead.
 */
export async function newBoundedQuickJsNg(): Promise<BoundedEngine> {
  const memory = boundedMemory();
  const engine = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory }));
  return { engine, memory };
}

let shared: Promise<QuickJSWASMModule> | undefined;

/**
 * One engine for a whole test file, reused across its runs. Tests only: a reused engine lets a
 * run read what earlier runs left in its memory, so the workers never reuse one (engine-supply.ts).
 */
export function loadQuickJsNg(): Promise<QuickJSWASMModule> {
  shared ??= newBoundedQuickJsNg().then((bounded) => bounded.engine);
  return shared;
}
