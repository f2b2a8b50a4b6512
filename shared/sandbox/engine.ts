// Compiles the quickjs-ng WASM module once per thread. The kernel takes the compiled module as a
// power; this helper is what the Node worker (and later the browser worker) hands it. Compiling is
// the expensive step, so each thread memoizes it.
//
// The engine gets its own bounded WebAssembly.Memory. Measured here: this quickjs-ng build
// enforces `setMemoryLimit` per allocation only — 30 × 4 MB typed arrays or strings under a
// 64 MB limit all succeed, and a loop of them grows the engine's linear memory to its 2 GB
// maximum before failing. Capping the linear memory at the guest limit plus the engine's own
// baseline makes the 64 MB bound real (an over-limit guest gets "out of memory" within
// milliseconds), and the cap holds across runs because one engine runs one guest at a time.

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { LIMITS } from '../protocol/limits.ts';

const PAGE = 64 * 1024;
/** The engine's own baseline (its initial memory), before any guest allocates. */
export const ENGINE_BASE_PAGES = 256;
/** Slack for the runtime's own structures around the guest's heap. */
const SLACK_PAGES = 256;
export const ENGINE_MAX_PAGES = ENGINE_BASE_PAGES + LIMITS.guestMemoryBytes / PAGE + SLACK_PAGES;

let engine: Promise<QuickJSWASMModule> | undefined;

/** A fresh engine with bounded linear memory, and that memory (its size is the engine's footprint). */
export async function newBoundedQuickJsNg(): Promise<{ engine: QuickJSWASMModule; memory: WebAssembly.Memory }> {
  const memory = new WebAssembly.Memory({ initial: ENGINE_BASE_PAGES, maximum: ENGINE_MAX_PAGES });
  const engine = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory }));
  return { engine, memory };
}

/** This thread's engine, compiled on first use. */
export function loadQuickJsNg(): Promise<QuickJSWASMModule> {
  engine ??= newBoundedQuickJsNg().then((bounded) => bounded.engine);
  return engine;
}
