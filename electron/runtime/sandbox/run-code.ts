// The one call the app, the web host and the CLI make to run a Code node's code: a catalog
// resolution, host grants and inputs in; a tagged result with its receipt out. It turns the
// catalog's executable modules into what the guest-side kernel needs (sources and import maps,
// no WASM bytes, no paths) and builds the host capability handlers from the grants.

import type { SandboxModuleResolutionOk } from '../../../shared/protocol/catalog.ts';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import type { GuestModule, KernelRunRequest, RunResult } from '../../../shared/protocol/run.ts';
import { WASM_BRIDGE_MODULE_ID } from '../../../shared/protocol/wasm-bridge.ts';
import { hostCapabilities, kernelGrants, type HostGrants } from './host-capabilities.ts';
import type { SandboxHostPorts, SandboxPool } from './sandbox-pool.ts';

export interface RunCodeInput {
  readonly code: string;
  /** The catalog's resolution of the node's declarations (or an empty one). */
  readonly resolution: Pick<SandboxModuleResolutionOk, 'entries' | 'modules'>;
  readonly inputs?: Readonly<Record<string, unknown>>;
  readonly grants?: HostGrants;
  /** Deadline in ms (default and maximum: 30 s). */
  readonly timeoutMs?: number;
  /** The WASM dispatcher for this run, when the resolution has WASM modules. */
  readonly wasm?: SandboxHostPorts['wasm'];
  /** Fires when the user stops the run (code.cancel). */
  readonly cancel?: AbortSignal;
  /** Who asked for the run (KernelRunRequest.partition). */
  readonly partition?: string;
}

export function kernelRequest(input: RunCodeInput): KernelRunRequest {
  return {
    code: input.code,
    entries: { ...input.resolution.entries },
    modules: guestModules(input.resolution.modules),
    inputs: { ...(input.inputs ?? {}) },
    grants: kernelGrants(input.grants ?? {}),
    timeoutMs: Math.min(input.timeoutMs ?? LIMITS.guestTimeoutMs, LIMITS.guestTimeoutMs),
    ...(input.partition !== undefined ? { partition: input.partition } : {}),
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

export function runCode(pool: SandboxPool, input: RunCodeInput): Promise<RunResult> {
  const ports: SandboxHostPorts = input.wasm
    ? { capability: hostCapabilities(input.grants ?? {}), wasm: input.wasm }
    : { capability: hostCapabilities(input.grants ?? {}) };
  return pool.run(kernelRequest(input), ports, input.cancel);
}
