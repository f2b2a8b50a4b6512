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

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
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

/** Compiles the engine's binary (the bytes of `emscripten-module.wasm`); once per thread. */
export function compileQuickJsNg(bytes: BufferSource): Promise<WebAssembly.Module> {
  return WebAssembly.compile(bytes);
}

let loaded: Promise<QuickJSSyncVariant> | undefined;

/**
 * The variant with its glue and FFI already imported. The stock variant imports both on every
 * instantiation; a dynamic import is a loader round trip (under tsx, a hop to its hooks thread:
 * measured about 0.7 ms of a 2 ms instantiation), paid once per thread here instead.
 */
function loadedVariant(): Promise<QuickJSSyncVariant> {
  loaded ??= Promise.all([variant.importFFI(), variant.importModuleLoader()]).then(([ffi, loader]) => ({
    type: 'sync',
    importFFI: () => Promise.resolve(ffi),
    importModuleLoader: () => Promise.resolve(loader),
  }));
  return loaded;
}

/**
 * A new engine instance of a compiled module, with fresh bounded memory. Nothing outside the
 * returned object refers to it (quickjs-emscripten keeps no registry of modules), so dropping it
 * lets the instance and its memory be collected.
 */
export async function instantiateQuickJsNg(wasmModule: WebAssembly.Module): Promise<BoundedEngine> {
  const memory = boundedMemory();
  const engine = await newQuickJSWASMModuleFromVariant(newVariant(await loadedVariant(), { wasmModule, wasmMemory: memory }));
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
