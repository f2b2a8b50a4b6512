// The one translation of a run into what the guest-side kernel is asked (KernelRunRequest), for
// every host: the Node runner, the browser runner, benches and tests. It is the one place a run's
// deadline is defaulted and clamped, and the one place a resolution's executable modules become
// the guest's view of them (sources and import maps: no WASM bytes, no graph sources, no paths).
// It checks nothing: a run's inputs were checked where they entered (the contract's schema).

import type { SandboxModuleResolutionOk } from './catalog.ts';
import { LIMITS } from './limits.ts';
import { NO_GRANTS, type CapabilityGrants, type GuestModule, type KernelRunRequest } from './run.ts';
import { WASM_BRIDGE_MODULE_ID } from './wasm-bridge.ts';

export interface KernelRequestParts {
  readonly code: string;
  /** The catalog's resolution of the run's declarations (or the browser's loaded modules). */
  readonly resolution: Pick<SandboxModuleResolutionOk, 'entries' | 'modules'>;
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** What the guest is told it may call (default: nothing). */
  readonly grants?: CapabilityGrants;
  /** Deadline in ms (default and maximum: LIMITS.guestTimeoutMs). */
  readonly timeoutMs?: number;
  /** Who asked for the run (KernelRunRequest.partition). */
  readonly partition?: string;
  /** Declared specifiers whose module runs isolated (KernelRunRequest.isolated). */
  readonly isolated?: readonly string[];
}

/** The specifiers a node's declarations ask to run isolated (`isolation: true`), once each. */
export function isolatedSpecifiers(declarations: readonly { readonly specifier: string; readonly isolation?: boolean }[]): string[] {
  return [...new Set(declarations.filter((d) => d.isolation === true).map((d) => d.specifier))];
}

export function toKernelRequest(parts: KernelRequestParts): KernelRunRequest {
  return {
    code: parts.code,
    entries: { ...parts.resolution.entries },
    modules: guestModules(parts.resolution.modules),
    inputs: { ...(parts.inputs ?? {}) },
    grants: parts.grants ?? NO_GRANTS,
    timeoutMs: Math.min(parts.timeoutMs ?? LIMITS.guestTimeoutMs, LIMITS.guestTimeoutMs),
    ...(parts.partition !== undefined ? { partition: parts.partition } : {}),
    ...(parts.isolated && parts.isolated.length > 0 ? { isolated: [...parts.isolated] } : {}),
  };
}

/**
 * The guest's view of a resolution's modules. The catalog hands out frozen resolutions and the
 * same one again for the same declarations on the same snapshot (electron/catalog/
 * resolution-cache.ts), so for a frozen record the view is built once and shared, frozen too;
 * a record that could still change is copied every time.
 */
const guestViews = new WeakMap<object, Readonly<Record<string, GuestModule>>>();

function guestModules(modules: SandboxModuleResolutionOk['modules']): Readonly<Record<string, GuestModule>> {
  const known = guestViews.get(modules);
  if (known) return known;
  const view: Record<string, GuestModule> = {};
  for (const [id, m] of Object.entries(modules)) {
    // The kernel supplies the private bridge module itself and refuses that id from a resolution.
    if (id === WASM_BRIDGE_MODULE_ID) continue;
    view[id] = {
      moduleId: m.moduleId,
      kind: m.kind,
      packName: m.packName,
      packVersion: m.packVersion,
      displayName: m.displayName,
      source: m.source,
      imports: { ...m.imports },
      digest: m.digest,
    };
  }
  if (!Object.isFrozen(modules)) return view;
  for (const m of Object.values(view)) Object.freeze(Object.freeze(m).imports);
  guestViews.set(modules, Object.freeze(view));
  return view;
}
