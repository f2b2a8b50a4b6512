// Test support: engine instances for tests and benches, which have no compiled module at hand (the
// workers compile the registered asset once and instantiate it, shared/sandbox/supply/engine.ts). One
// engine shared by a whole test file is fine there and never in production: a reused engine lets
// a run read what earlier runs left in its memory, so workers restore theirs (sandbox-supply.ts).

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { boundedMemory, guardHostAllocations, keepLeadingByteOrderMark, type BoundedEngine } from '../sandbox/supply/engine.ts';

/** A new engine instance with bounded memory, which the variant's own glue loads and compiles from its .wasm file. */
export async function newBoundedQuickJsNg(): Promise<BoundedEngine> {
  const memory = boundedMemory();
  const engine = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory }));
  // Strings read from the guest as the workers' engines read them (engine.ts); the glue is the
  // module's private field here, which the stock loader gives no other way to reach.
  const glue = (engine as unknown as { module: Parameters<typeof keepLeadingByteOrderMark>[0] & Parameters<typeof guardHostAllocations>[0] }).module;
  keepLeadingByteOrderMark(glue);
  guardHostAllocations(glue);
  return { engine, memory };
}

let shared: Promise<QuickJSWASMModule> | undefined;

/** One engine for a whole test file, reused across its runs. */
export function loadQuickJsNg(): Promise<QuickJSWASMModule> {
  shared ??= newBoundedQuickJsNg().then((bounded) => bounded.engine);
  return shared;
}
