// Compiles the quickjs-ng WASM module once per thread. The kernel takes the compiled module as a
// power; this helper is what the Node worker (and later the browser worker) hands it. Compiling is
// the expensive step (tens of ms), so each thread memoizes it.

import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';

let engine: Promise<QuickJSWASMModule> | undefined;

export function loadQuickJsNg(): Promise<QuickJSWASMModule> {
  engine ??= newQuickJSWASMModuleFromVariant(variant);
  return engine;
}
