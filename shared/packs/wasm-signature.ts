// How every face writes a WASM export's signature (completions, the picker, MCP's module list,
// `check`): the guest-visible name and the declared types, `digest(bytes) → string (async)`.

import type { WasmExportTypes } from '../protocol/catalog.ts';

/** `scale(f64, f64) → f64`; a void export returns nothing. */
export function signatureText(signature: WasmExportTypes): string {
  return `${signature.as}(${signature.params.join(', ')}) → ${signature.results[0] ?? 'nothing'}`;
}

/** A WASM export as a caller meets it: `digest(bytes) → string (async)` (every facade export is async). */
export function wasmSignatureText(signature: WasmExportTypes): string {
  return `${signatureText(signature)} (async)`;
}
