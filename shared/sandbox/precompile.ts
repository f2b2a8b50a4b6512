// Compiling pack modules into a sandbox before its run: the engine's compile of a module's source
// is most of what importing it costs (quickjs-ng in WASM compiles about 5 bytes a microsecond:
// ~85 µs of a ~140 µs run importing @acme/geo's two small files, measured), and the engine offers
// no bytecode to cache. A sandbox worker whose runs keep importing the same modules compiles them
// into its restored sandbox while it waits for the next run (engine-supply.ts), and that run finds
// them compiled.
//
// Compiled, never evaluated: no guest code runs here. The engine loads (compiles and resolves)
// every module a module imports while compiling it, and links and evaluates only afterwards; the
// precompile entry imports a binding from itself that it does not export, so linking always fails
// on the entry's own import, whatever the pack modules contain, and nothing is evaluated. Linking
// a pack module may already have happened by then; that runs no guest code either (the engine
// makes the module's hoisted function objects, as the run's own linking would, before any guest
// code runs). A run then links what is not linked and evaluates every module itself, after its
// inputs are set, exactly as it would have after compiling them.
//
// A run may use such a sandbox only if it comes from the caller whose runs it was compiled for
// (KernelRunRequest.partition: no run is faster for what another caller imported) and every
// module in it is a module of the run's own resolution, identical (source, kind, imports): `fits`. Otherwise the sandbox goes back to its
// image first (engine-supply.ts), so a run never holds compiled modules it did not declare (their
// memory would tell it what an earlier run used) and never a stale one (a catalog reload that
// changed a file under the same module id).
//
// The engine does not ask again for a compiled module's imports, so the run's loader cannot see
// them: it records each compiled module and those it imports, in the order the engine resolved
// them here, when the run first imports it (module-loader.ts). The run's receipt is the same.

import type { QuickJSContext, QuickJSRuntime } from 'quickjs-emscripten-core';
import type { GuestModule, KernelRunRequest } from '../protocol/run.ts';
import { decideImport, type LoaderGraph } from './loader-policy.ts';

/** The precompile entry's module name ("sandbox:" ids are reserved: no resolution may use one). */
export const PRECOMPILE_MODULE_NAME = 'sandbox:precompile';
/** Sources past this, in all, are left to the run (its compile would block the worker's next run meanwhile). */
export const PRECOMPILE_MAX_BYTES = 256 * 1024;

const ENTRY_SOURCE_HEAD = `import { x } from ${JSON.stringify(PRECOMPILE_MODULE_NAME)};\n`;
/** The one error a clean precompile ends with: the entry's own import, at link time. */
const EXPECTED_ERROR = `Could not find export 'x' in module '${PRECOMPILE_MODULE_NAME}'`;

/** What a sandbox holds compiled: each module as compiled, and the modules each one's imports named, in the engine's order. */
export interface Precompiled {
  readonly modules: ReadonlyMap<string, GuestModule>;
  readonly imports: ReadonlyMap<string, readonly string[]>;
}

/**
 * Compile `modules` into a runtime and context no run has used. `undefined`: not tried (nothing
 * to compile, a WASM module, too large), the sandbox untouched. `'failed'`: tried and failed (a
 * syntax error, a denied import, a link error between the modules): the sandbox holds a partial
 * state and must go back to its image before any run.
 */
export function precompileModules(
  runtime: QuickJSRuntime,
  ctx: QuickJSContext,
  modules: Readonly<Record<string, GuestModule>>,
): Precompiled | 'failed' | undefined {
  const ids = Object.keys(modules);
  if (ids.length === 0) return undefined;
  let bytes = 0;
  for (const id of ids) {
    const module = modules[id]!;
    if (module.kind !== 'js' || id.startsWith('sandbox:')) return undefined;
    bytes += module.source.length;
  }
  if (bytes > PRECOMPILE_MAX_BYTES) return undefined;

  const graph: LoaderGraph = { entries: {}, modules };
  const imports = new Map<string, string[]>();
  const loaded = new Set<string>();
  let denied = false;
  runtime.setModuleLoader(
    (name) => {
      const module = Object.hasOwn(modules, name) ? modules[name] : undefined;
      if (!module) return { error: new Error(`not a module of the set: ${name}`) };
      loaded.add(name);
      return module.source;
    },
    (base, request) => {
      if (base === PRECOMPILE_MODULE_NAME) {
        if (request === PRECOMPILE_MODULE_NAME || Object.hasOwn(modules, request)) return request;
        denied = true;
        return `${PRECOMPILE_MODULE_NAME}:denied`;
      }
      const decision = decideImport(graph, base, request);
      if (!decision.ok) {
        denied = true;
        return `${PRECOMPILE_MODULE_NAME}:denied`;
      }
      let named = imports.get(base);
      if (!named) imports.set(base, (named = []));
      named.push(decision.moduleId);
      return decision.moduleId;
    },
  );
  try {
    const source = ENTRY_SOURCE_HEAD + ids.map((id) => `import ${JSON.stringify(id)};\n`).join('');
    const result = ctx.evalCode(source, PRECOMPILE_MODULE_NAME, { type: 'module' });
    if (!result.error) {
      // Cannot happen (the entry's own import cannot link); if it ever did, nothing of it is kept.
      result.value.dispose();
      return 'failed';
    }
    const error = ctx.dump(result.error) as unknown;
    result.error.dispose();
    const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
    if (message !== EXPECTED_ERROR || denied || loaded.size !== ids.length) return 'failed';
  } finally {
    runtime.removeModuleLoader();
  }
  const compiled = new Map<string, GuestModule>();
  for (const id of ids) compiled.set(id, modules[id]!);
  return { modules: compiled, imports };
}

/** Whether a run with `modules` may use a sandbox holding `precompiled`: every module in it is one of the run's, identical. */
export function fits(precompiled: Precompiled, modules: KernelRunRequest['modules']): boolean {
  for (const [id, module] of precompiled.modules) {
    const own = Object.hasOwn(modules, id) ? modules[id] : undefined;
    if (!own || own.source !== module.source || own.kind !== module.kind || !sameImports(own.imports, module.imports)) return false;
  }
  return true;
}

function sameImports(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || a[key] !== b[key]) return false;
  return true;
}

/**
 * The modules a run reaches by importing the compiled module `id`, in the order the engine would
 * have loaded them (depth first, each once): what its loader would have seen. `seen` holds what
 * the run has recorded already.
 */
export function reachedFrom(precompiled: Precompiled, id: string, seen: (id: string) => boolean, record: (id: string) => void): void {
  if (seen(id) || !precompiled.modules.has(id)) return;
  record(id);
  for (const next of precompiled.imports.get(id) ?? []) reachedFrom(precompiled, next, seen, record);
}
