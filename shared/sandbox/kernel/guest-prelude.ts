// The guest prelude: the first code that runs in every fresh guest context, before any module is
// loaded (so before any pack's top level): it removes code generation, timers and shared memory,
// captures the host bridge and deletes its globals, keeps the stack-frame hook from the guest, hides
// function source and installs the capability globals as locked wrappers. Being first is the point:
// a pack sees the hardened world and cannot replace or spy on the node's own calls (the rules that
// keep this are in guest/prelude-core.js; one test per way in: prelude-spying.test.ts).
// The code is guest source in guest/ (prelude-core.js, library.js, linted on their own); this file
// fills in the host's names and limits. Marshaling follows the spec's settled rules (Fact 7).

import { LIMITS } from '../../protocol/limits.ts';
import { WASM_BRIDGE_GLOBAL } from '../../protocol/wasm-bridge.ts';
import { HOST_RANDOM_GLOBAL, HOST_WEB_GLOBAL, WEB_GLOBALS } from './guest-web.ts';
import { BRIDGE_LIBRARY, PRELUDE_CORE_PLAIN, PRELUDE_CORE_WASM } from '../guest/guest-sources.generated.ts';

/** Globals the host defines before the core runs; the core deletes them. */
export const HOST_CALL_GLOBAL = '__sandboxHostCall';
export const HOST_LOG_GLOBAL = '__sandboxHostLog';
export const HOST_LIBRARY_GLOBAL = '__sandboxHostLibrary';
/**
 * The run's clock: `(0)` → milliseconds since the run started (its own clock, which leaves out any
 * time the host held it), `(1)` → when it started (epoch ms). The guest's `performance` reads it,
 * so every run has a time origin of its own: the engine's own one is its context's creation,
 * which a restored image keeps — a run could read the sandbox's age and link itself to earlier runs.
 */
export const HOST_CLOCK_GLOBAL = '__sandboxHostClock';
/**
 * The WASM fast path: `(moduleId, exportName, ...numbers)` → a call id. The host answers later
 * through the core's `deliver(id, answer)`: a number, `undefined` (a void export) or a tagged
 * result as JSON text (a failure, or a scripted non-scalar answer). Scalar calls are the hot
 * path of the WASM bridge, and skipping JSON, the bridge library and a host-made promise is most
 * of their cost (measured); anything that is not a plain list of numbers takes the general bridge
 * instead, so the host sees and rejects it exactly as before.
 */
export const HOST_WASM_GLOBAL = '__sandboxHostWasm';

/** The names the core and library are evaluated under; their frames are skipped when naming a caller. */
export const PRELUDE_SCRIPT_NAME = 'sandbox:prelude';
export const LIBRARY_SCRIPT_NAME = 'sandbox:bridge';

/** Each web global as `name:part:e` (e: enumerable, as WebIDL has operations and attributes), for the core's lazy accessors. */
const WEB_LAZY = Object.entries(WEB_GLOBALS)
  .map(([name, part]) => `${name}:${part}:${/^[A-Z]/.test(name) ? '' : 'e'}`)
  .join(' ');

/** What the guest source's `__NAME__` placeholders stand for (declared as globals for it in eslint.config.js). */
const PLACEHOLDERS: Readonly<Record<string, string>> = {
  __HOST_CALL__: JSON.stringify(HOST_CALL_GLOBAL),
  __HOST_LOG__: JSON.stringify(HOST_LOG_GLOBAL),
  __HOST_CLOCK__: JSON.stringify(HOST_CLOCK_GLOBAL),
  __HOST_LIBRARY__: JSON.stringify(HOST_LIBRARY_GLOBAL),
  __HOST_WASM__: JSON.stringify(HOST_WASM_GLOBAL),
  __HOST_WEB__: JSON.stringify(HOST_WEB_GLOBAL),
  __HOST_RANDOM__: JSON.stringify(HOST_RANDOM_GLOBAL),
  __WEB_LAZY__: JSON.stringify(WEB_LAZY),
  __WASM_MAX_PARAMS__: String(LIMITS.wasmMaxParams),
  __WASM_GLOBAL__: JSON.stringify(WASM_BRIDGE_GLOBAL),
  __PRELUDE_NAME__: JSON.stringify(PRELUDE_SCRIPT_NAME),
  __LIBRARY_NAME__: JSON.stringify(LIBRARY_SCRIPT_NAME),
  __JSON_DEPTH__: String(LIMITS.jsonDepth),
  __COPY_BYTES__: String(LIMITS.isolationCopyBytes),
  __COPY_DEPTH__: String(LIMITS.jsonDepth),
};

/** The text with every placeholder filled; throws at load on one this file does not know (a guest ReferenceError otherwise). */
function filled(source: string): string {
  return source.replace(/\b__[A-Z][A-Z_]*__\b/g, (name) => {
    const value = PLACEHOLDERS[name];
    if (value === undefined) throw new Error(`guest source placeholder ${name} has no value in guest-prelude.ts`);
    return value;
  });
}

const CORE_PLAIN = filled(PRELUDE_CORE_PLAIN);
const CORE_WASM = filled(PRELUDE_CORE_WASM);
const LIBRARY = filled(BRIDGE_LIBRARY);

/** The core prelude for a run; `withWasm` binds the WASM bridge global for module evaluation. */
export function guestPreludeSource(withWasm: boolean): string {
  return withWasm ? CORE_WASM : CORE_PLAIN;
}

/** The bridge library: a function expression the host calls with the core's captured intrinsics. */
export function guestLibrarySource(): string {
  return LIBRARY;
}
