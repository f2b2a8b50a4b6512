// What a Code node saves about the modules it imports, and how the picker reads it back. Saving
// stamps each selected specifier with the installed pack version and module-graph digest
// (spec: "Declaring usage on the node"); reading compares those stamps with what is installed
// now, so drift shows as a warning with a re-pin action instead of silently changing. Whether a
// module runs isolated is the user's choice on the declaration, and stamping never drops it.

import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';

export type DeclarationState =
  | { readonly kind: 'ready'; readonly module: ModuleSummary; readonly drift: readonly Drift[] }
  | { readonly kind: 'skipped'; readonly module: ModuleSummary }
  | { readonly kind: 'unavailable' };

export type Drift =
  | { readonly kind: 'version'; readonly saved: string; readonly installed: string }
  | { readonly kind: 'digest'; readonly saved: string; readonly installed: string };

export function moduleBySpecifier(modules: readonly ModuleSummary[]): Map<string, ModuleSummary> {
  return new Map(modules.map((m) => [m.specifier, m]));
}

export function declarationState(declaration: SandboxModuleDeclaration, modules: ReadonlyMap<string, ModuleSummary>): DeclarationState {
  const module = modules.get(declaration.specifier);
  if (module === undefined) return { kind: 'unavailable' };
  if (module.status !== 'ready') return { kind: 'skipped', module };
  const drift: Drift[] = [];
  if (declaration.resolvedPackVersion !== undefined && declaration.resolvedPackVersion !== module.packVersion) {
    drift.push({ kind: 'version', saved: declaration.resolvedPackVersion, installed: module.packVersion });
  }
  if (declaration.contentDigest !== undefined && module.digest !== undefined && declaration.contentDigest !== module.digest) {
    drift.push({ kind: 'digest', saved: declaration.contentDigest, installed: module.digest });
  }
  return { kind: 'ready', module, drift };
}

export function driftMessage(specifier: string, drift: Drift): string {
  return drift.kind === 'version'
    ? `"${specifier}" was saved with version ${drift.saved}; ${drift.installed} is installed and will be used.`
    : `"${specifier}" differs from the content this node was saved with (digest ${drift.saved.slice(0, 12)}…, installed ${drift.installed.slice(0, 12)}…); review the pack before running.`;
}

/** A declaration pinned to what is installed now (used on select and by "Re-pin"). */
export function pin(specifier: string, modules: ReadonlyMap<string, ModuleSummary>): SandboxModuleDeclaration {
  const module = modules.get(specifier);
  if (module === undefined || module.status !== 'ready') return { specifier };
  return { specifier, resolvedPackVersion: module.packVersion, ...(module.digest ? { contentDigest: module.digest } : {}) };
}

export function toggleDeclaration(
  list: readonly SandboxModuleDeclaration[],
  specifier: string,
  on: boolean,
  modules: ReadonlyMap<string, ModuleSummary>,
): SandboxModuleDeclaration[] {
  const without = list.filter((d) => d.specifier !== specifier);
  return on ? [...without, pin(specifier, modules)] : without;
}

/** Re-pinning restamps version and digest; what the user chose about the module (isolation) stays. */
const repinned = (d: SandboxModuleDeclaration, modules: ReadonlyMap<string, ModuleSummary>): SandboxModuleDeclaration => ({
  ...pin(d.specifier, modules),
  ...(d.isolation === true ? { isolation: true } : {}),
});

export function repin(list: readonly SandboxModuleDeclaration[], specifier: string, modules: ReadonlyMap<string, ModuleSummary>): SandboxModuleDeclaration[] {
  return list.map((d) => (d.specifier === specifier ? repinned(d, modules) : d));
}

/** At save: stamp declarations that carry no stamp yet; existing stamps (and their drift) stay until re-pinned. */
export function stampMissing(list: readonly SandboxModuleDeclaration[], modules: ReadonlyMap<string, ModuleSummary>): SandboxModuleDeclaration[] {
  return list.map((d) => (d.resolvedPackVersion === undefined && d.contentDigest === undefined ? repinned(d, modules) : d));
}

/**
 * The picker's "Isolate" toggle: on stores `isolation: true` on that declaration, off removes the
 * key, so a workflow file that never used isolation reads and saves exactly as before.
 */
export function setIsolation(list: readonly SandboxModuleDeclaration[], specifier: string, on: boolean): SandboxModuleDeclaration[] {
  return list.map((d) => {
    if (d.specifier !== specifier) return d;
    const { isolation: _old, ...rest } = d;
    return on ? { ...rest, isolation: true } : rest;
  });
}
