// The names that tie a WASM facade to the private bridge module and the binding behind it. Every
// ring agrees on them — the analyzer refuses a pack that imports the bridge, the pack graph wires
// facades to it, the kernel's loader resolves it and the prelude installs the binding — so they
// live in protocol, which every other part of shared/ may import, and not with any one of them.

/** The request string facades use, and the bridge's module id. Never importable by pack or user code. */
export const WASM_BRIDGE_SPECIFIER = 'sandbox:wasm-bridge';
export const WASM_BRIDGE_MODULE_ID = 'sandbox:wasm-bridge';

/** The temporary global the kernel binds to the per-run dispatcher during module evaluation. */
export const WASM_BRIDGE_GLOBAL = '__sandboxPacksWasmBridge';
