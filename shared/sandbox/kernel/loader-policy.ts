// The decision the module loader makes, as a pure function: may the module `base` import the
// request string `request` in this run? The answer comes only from the resolution: the entry may
// import exactly the declared specifiers, a module exactly the keys of its own `imports` map.
// There is no path arithmetic here on purpose — a request is looked up as an opaque string, so
// "..", absolute paths, percent-encoding and `node:` prefixes have nothing to exploit.

import type { ErrorCode } from '../../protocol/codes.ts';
import { WASM_BRIDGE_MODULE_ID, WASM_BRIDGE_SPECIFIER } from '../../protocol/wasm-bridge.ts';
import { ENTRY_MODULE_NAME } from './entry-transform.ts';
import { INPUTS_MODULE_ID } from './inputs-module.ts';

/** What the loader needs of a module: where it may import from, and how to name it. */
export interface LoaderModule {
  readonly moduleId: string;
  readonly kind: 'js' | 'wasm';
  readonly displayName: string;
  readonly packName: string;
  readonly imports: Readonly<Record<string, string>>;
}

export interface LoaderGraph {
  readonly entries: Readonly<Record<string, string>>;
  readonly modules: Readonly<Record<string, LoaderModule>>;
}

export type LoaderDecision = { readonly ok: true; readonly moduleId: string } | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

function declarationText(graph: LoaderGraph): string {
  const specifiers = Object.keys(graph.entries);
  return specifiers.length ? `[${specifiers.map((s) => JSON.stringify(s)).join(', ')}]` : 'empty';
}

function describeFrom(graph: LoaderGraph, base: string): string {
  if (base === ENTRY_MODULE_NAME) return "the node's code";
  const module = graph.modules[base];
  return module ? `"${module.displayName}"` : 'an unknown module';
}

function hint(request: string): string {
  if (request.startsWith('node:')) return ' Node builtins do not exist in the sandbox.';
  if (request.startsWith('/') || /^[A-Za-z]:[\\/]/.test(request) || request.startsWith('file:')) return ' Absolute paths never resolve in the sandbox.';
  if (request.includes('..') || /%2e|%2f|%5c/i.test(request)) return ' Paths cannot step outside a pack.';
  return '';
}

/** Decide one import. `base` is the importing module's name (the entry's, or a module id). */
export function decideImport(graph: LoaderGraph, base: string, request: string): LoaderDecision {
  const declared = declarationText(graph);
  const deny = (detail: string): LoaderDecision => ({
    ok: false,
    code: 'import-denied',
    message: `Import ${JSON.stringify(request)} from ${describeFrom(graph, base)} was denied: ${detail}${hint(request)} This node's packages declaration is ${declared}.`,
  });

  if (base === ENTRY_MODULE_NAME) {
    // The kernel's inputs module, which the entry imports to bind the run's inputs (inputs-module.ts).
    if (request === INPUTS_MODULE_ID) return { ok: true, moduleId: INPUTS_MODULE_ID };
    if (!Object.hasOwn(graph.entries, request)) {
      return deny("the node's code may import only the modules in its packages declaration.");
    }
    const moduleId = graph.entries[request] as string;
    if (!Object.hasOwn(graph.modules, moduleId)) return deny("the declared module is missing from the run's resolution.");
    return { ok: true, moduleId };
  }

  const module = Object.hasOwn(graph.modules, base) ? graph.modules[base] : undefined;
  if (!module) return deny('the importing module is not part of this run.');
  if (!Object.hasOwn(module.imports, request)) {
    return deny(`a pack module may import only its own pack's files that it declares (pack ${module.packName}).`);
  }
  const moduleId = module.imports[request] as string;
  if (request === WASM_BRIDGE_SPECIFIER || moduleId === WASM_BRIDGE_MODULE_ID) {
    // Only generated WASM facades may reach the private bridge, whatever an imports map says.
    if (module.kind !== 'wasm' || request !== WASM_BRIDGE_SPECIFIER || moduleId !== WASM_BRIDGE_MODULE_ID) {
      return deny('the private WASM bridge is reachable only from generated WASM facades.');
    }
    return { ok: true, moduleId };
  }
  if (!Object.hasOwn(graph.modules, moduleId)) return deny("the target module is missing from the run's resolution.");
  return { ok: true, moduleId };
}
