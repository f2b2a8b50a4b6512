// The guest-side face of a host WASM module. `import { simplify } from "@acme/geo/simplify-wasm"`
// resolves to a facade generated here: one named async export per declared WASM export, each
// awaiting a call through the private bridge module, which takes a one-shot global binding the
// guest prelude installs (wasmBridgeModuleSource), so no pack ever sees it.
//
// Hiding the binding is not the boundary: the host dispatcher serves only the run's declared WASM
// modules and checks module identity, export allowlist, argument count and scalar types on every
// call. Only facades may import the bridge: the analyzer rejects a pack that imports it, and the
// loader resolves it for no module other than a facade.

import type { WasmExportSignature } from '../protocol/catalog.ts';
import { WASM_BRIDGE_GLOBAL, WASM_BRIDGE_SPECIFIER } from '../protocol/wasm-bridge.ts';
import { isGuestExportName } from './wasm-binary.ts';

/** Bumped whenever generated facade or bridge text changes: it is part of the graph digest. */
export const WASM_FACADE_GENERATOR_VERSION = 'sandbox-packs-wasm-facade/2';

/**
 * Source of the private bridge module. It reads a temporary global binding the guest prelude
 * installs; the kernel evaluates the bridge module right after the prelude, before any pack
 * module, and that one read removes the binding (it is one-shot): it captures the binding once,
 * when it evaluates. The binding (the guest prelude's bridge) resolves with the export's value or
 * rejects with an Error carrying the host's `code`, and never throws; so `callWasm` is a plain
 * function returning its promise, and each facade export is one async frame that awaits it.
 * (Version 1 unwrapped a tagged result in an async `callWasm` and returned its promise from the
 * export: in quickjs-ng those frames cost more than the rest of a guest-side call, measured;
 * `return await` is the cheaper way for an async function to hand back a promise's value.)
 */
export function wasmBridgeModuleSource(): string {
  return [
    `const bridge = globalThis[${JSON.stringify(WASM_BRIDGE_GLOBAL)}];`,
    'const missing = async () => { throw new Error("The WASM bridge is not available in this run."); };',
    'export function callWasm(moduleId, exportName, args) {',
    '  return typeof bridge === "function" ? bridge(moduleId, exportName, args) : missing();',
    '}',
    '',
  ].join('\n');
}

export interface WasmFacadeInput {
  readonly moduleId: string;
  readonly exports: readonly WasmExportSignature[];
}

/** The facade module's source for one WASM entry. Export names must already be validated. */
export function generateWasmFacade(input: WasmFacadeInput): string {
  const lines = [`import { callWasm } from ${JSON.stringify(WASM_BRIDGE_SPECIFIER)};`, `const id = ${JSON.stringify(input.moduleId)};`];
  for (const exp of input.exports) {
    // The same rule binary validation applies: an identifier that is also not reserved, so the
    // generated `export async function <name>` always parses.
    if (!isGuestExportName(exp.as)) {
      throw new TypeError(`generateWasmFacade: export name ${JSON.stringify(exp.as)} is not a valid non-reserved identifier; binary validation must reject it first`);
    }
    lines.push(`export async function ${exp.as}(...args) { return await callWasm(id, ${JSON.stringify(exp.as)}, args); }`);
  }
  lines.push('');
  return lines.join('\n');
}
