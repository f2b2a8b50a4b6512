// Resolutions remembered per catalog snapshot. A Code node runs the same declaration list again
// and again against a catalog that rarely changes, and its resolution is a pure function of the
// two: the snapshot (immutable; every reload, install and uninstall swaps in a new object) and
// the declarations. So the answer is kept in a map owned by the snapshot object itself (a WeakMap
// entry: a swapped-out snapshot takes its answers with it) under a key spelling out the list
// exactly. Answers are frozen, since every later caller shares them.
//
// Invariant: a cached answer is the snapshot's own. A run on a reloaded catalog looks in the new
// snapshot's map, which starts empty; a different list has a different key; a list whose key is
// not certain to describe it is resolved afresh (declarationKey).

import type { SandboxModuleResolution } from '../../shared/protocol/catalog.ts';

/** What the cache needs of a snapshot: its resolution, a pure function of the declarations. */
export interface ResolvingSnapshot {
  resolveForExecution(declarations: unknown): SandboxModuleResolution;
}

/** Different lists kept per snapshot; past this the oldest is forgotten (a workflow has a few). */
export const MAX_LISTS_PER_SNAPSHOT = 256;

/** DeclarationListSchema's bound; a longer list is never a cache key. */
const MAX_DECLARATIONS = 64;

export class ResolutionCache {
  readonly #bySnapshot = new WeakMap<ResolvingSnapshot, Map<string, SandboxModuleResolution>>();

  resolve(snapshot: ResolvingSnapshot, declarations: unknown): SandboxModuleResolution {
    const key = declarationKey(declarations);
    if (key === undefined) return snapshot.resolveForExecution(declarations);
    let answers = this.#bySnapshot.get(snapshot);
    if (!answers) {
      answers = new Map();
      this.#bySnapshot.set(snapshot, answers);
    }
    const known = answers.get(key);
    if (known) return known;
    const resolution = frozen(snapshot.resolveForExecution(declarations));
    if (answers.size >= MAX_LISTS_PER_SNAPSHOT) answers.delete(answers.keys().next().value as string);
    answers.set(key, resolution);
    return resolution;
  }
}

/**
 * The list spelled out exactly (keys in their order, values as given), or undefined when it cannot be.
 * Only a list whose key is certain to describe what the snapshot would parse is cached: a plain
 * array of plain objects holding only string data properties. Anything else (getters, symbols,
 * prototypes, non-string values) is resolved afresh and refused or accepted by the snapshot's
 * own parse, exactly as without the cache.
 */
export function declarationKey(declarations: unknown): string | undefined {
  if (!Array.isArray(declarations) || Object.getPrototypeOf(declarations) !== Array.prototype) return undefined;
  // Longer than the schema allows (DeclarationListSchema): the snapshot refuses it, uncached.
  if (declarations.length > MAX_DECLARATIONS) return undefined;
  for (let i = 0; i < declarations.length; i++) {
    if (!Object.hasOwn(declarations, i)) return undefined;
    const declaration: unknown = declarations[i];
    if (declaration === null || typeof declaration !== 'object' || Object.getPrototypeOf(declaration) !== Object.prototype) return undefined;
    const keys = Reflect.ownKeys(declaration);
    for (const key of keys) {
      if (typeof key !== 'string') return undefined;
      const property = Object.getOwnPropertyDescriptor(declaration, key);
      if (!property || !property.enumerable || !('value' in property) || typeof property.value !== 'string') return undefined;
    }
  }
  return JSON.stringify(declarations);
}

function frozen(resolution: SandboxModuleResolution): SandboxModuleResolution {
  if (resolution.ok) {
    Object.freeze(resolution.entries);
    Object.freeze(resolution.modules);
    for (const declaration of resolution.declarations) Object.freeze(declaration);
    Object.freeze(resolution.declarations);
  }
  return Object.freeze(resolution);
}
