// Images of evaluated module sets. Compiling and evaluating a library's module graph is nearly all
// of what a run importing it costs (figures: docs/performance.md). So a sandbox supply keeps, per
// module set, a sandbox in which that set was evaluated once — with no capabilities and no inputs —
// and an image of its engine's memory taken then; a run importing exactly that set gets the
// sandbox at that image, and its imports find their modules evaluated (sandbox-supply.ts).
//
// Invariants: an image holds only what module initialisation produces with nothing of any run
// (ImageRecord); no caller's run ever uses an image another caller's runs made (ImagePlan's key);
// a run uses an image only if every module in it is the run's own, identical (`fits`).

import type { GuestModule, KernelRunRequest, RunLog } from '../../protocol/run.ts';
import { WASM_BRIDGE_MODULE_ID } from '../../protocol/wasm-bridge.ts';

/** The module name an image's build entry is evaluated under ("sandbox:" ids are reserved). */
export const IMAGE_ENTRY_NAME = 'sandbox:image';

/**
 * A module set to evaluate into an image. A plan names the set by the run's own imports, in the
 * order its entry evaluates them (the evaluation order is part of the state), every module of their
 * closure with its digest, the kind of sandbox and the caller (KernelRunRequest.partition): no
 * caller's run ever uses an image another caller's runs made. A run may use an image only if every
 * module in it is the run's own, identical (`fits`): a catalog that changed a source under the same
 * id never meets a stale image.
 */
export interface ImagePlan {
  /** Names everything that decides the image's content: partition, kind, imports in order, closure with digests. */
  readonly key: string;
  /** The module ids the run's entry imports, in its order (each once). */
  readonly top: readonly string[];
  /** Every module of the closure, by id. */
  readonly modules: Readonly<Record<string, GuestModule>>;
}

/**
 * What an image holds: each module as evaluated, what each one's imports named, and the console
 * entries of the evaluation.
 *
 * What an image may hold is what module initialisation produces with nothing of any run: the
 * build binds no run to the bridge (a capability, WASM or host call refuses, and the set is then
 * never imaged: it is evaluated in each run, as before), sets no inputs (runs bind theirs after
 * every import has evaluated, so per-run evaluation sees none either), and its console entries are
 * kept to be replayed into each run that uses it, where per-run evaluation would have logged them.
 * A module set whose initialisation throws, is denied an import, or does not settle without a host
 * call is evaluated in each run too, so its error reaches the run exactly as it always did
 * (kernel/kernel.ts `evaluateImageInto`).
 */
export interface ImageRecord {
  readonly key: string;
  readonly modules: ReadonlyMap<string, GuestModule>;
  readonly imports: ReadonlyMap<string, readonly string[]>;
  readonly logs: readonly RunLog[];
}

/**
 * The plan for a run whose entry imports `specifiers` (in order), or undefined when there is
 * nothing to image: no imports, or one the run's resolution does not hold (the run is then denied
 * an import, and its per-run evaluation says so).
 */
export function imagePlan(request: KernelRunRequest, specifiers: readonly string[], withWasm: boolean): ImagePlan | undefined {
  const top: string[] = [];
  for (const specifier of specifiers) {
    const id = Object.hasOwn(request.entries, specifier) ? request.entries[specifier] : undefined;
    if (id === undefined || !Object.hasOwn(request.modules, id)) return undefined;
    if (!top.includes(id)) top.push(id);
  }
  if (top.length === 0) return undefined;
  const modules: Record<string, GuestModule> = {};
  const order: string[] = [];
  const visit = (id: string): boolean => {
    if (Object.hasOwn(modules, id)) return true;
    const module = Object.hasOwn(request.modules, id) ? request.modules[id] : undefined;
    if (!module) return false;
    modules[id] = module;
    order.push(id);
    for (const next of Object.values(module.imports)) {
      // The private WASM bridge is part of every sandbox that has it, not of the set.
      if (next === WASM_BRIDGE_MODULE_ID) continue;
      if (!visit(next)) return false;
    }
    return true;
  };
  for (const id of top) if (!visit(id)) return undefined;
  const closure = order.map((id) => `${id}@${modules[id]!.digest}`).join(' ');
  return { key: [request.partition ?? '', withWasm ? 'wasm' : 'plain', top.join(' '), closure].join('\n'), top, modules };
}

/** The build entry's source: an import of each top-level module, in the run's order. */
export function imageEntrySource(plan: ImagePlan): string {
  return plan.top.map((id) => `import ${JSON.stringify(id)};\n`).join('');
}

/** Whether a run with `modules` may use a sandbox holding `record`: every module in it is one of the run's, identical. */
export function fits(record: Pick<ImageRecord, 'modules'>, modules: KernelRunRequest['modules']): boolean {
  for (const [id, module] of record.modules) {
    const own = Object.hasOwn(modules, id) ? modules[id] : undefined;
    if (!own || own.source !== module.source || own.kind !== module.kind || own.digest !== module.digest || !sameImports(own.imports, module.imports))
      return false;
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
 * The modules a run reaches by importing the image's module `id`, in the order the engine would
 * have loaded them (depth first, each once): what its loader would have seen, so its receipt is
 * the same. `seen` holds what the run has recorded already.
 */
export function reachedFrom(record: Pick<ImageRecord, 'modules' | 'imports'>, id: string, seen: (id: string) => boolean, note: (id: string) => void): void {
  if (seen(id) || !record.modules.has(id)) return;
  note(id);
  for (const next of record.imports.get(id) ?? []) reachedFrom(record, next, seen, note);
}
