// The CodeAct session allowlist rule, in one place for every face that advertises packages to an
// agent (the Agent & settings screen, the MCP server). The spec: CodeAct mounts only packs on the
// session's allowlist, defaulting to trusted packs only, and the prompt advertises only
// session-allowed packages — one manifest-derived line each, never pack prose.

import type { InstalledPack } from './pack-schemas.ts';
import { usableByDefault } from './pack-state.ts';
import type { ModuleSummary } from './schemas.ts';

/** An empty saved allowlist means "the default": the ready modules of active packs trusted for use (pack-state.ts). */
export function effectiveAllowlist(
  saved: readonly string[],
  packs: readonly InstalledPack[],
  modules: readonly ModuleSummary[],
): { specifiers: string[]; isDefault: boolean } {
  if (saved.length > 0) return { specifiers: [...saved], isDefault: false };
  const trusted = new Set(packs.filter(usableByDefault).map((p) => p.name));
  return { specifiers: modules.filter((m) => m.status === 'ready' && trusted.has(m.packName)).map((m) => m.specifier), isDefault: true };
}

/** One line per allowed, ready specifier: the catalog's manifest-derived summary. */
export function promptLines(allowlist: readonly string[], modules: readonly ModuleSummary[]): string[] {
  const allowed = new Set(allowlist);
  return modules.filter((m) => m.status === 'ready' && allowed.has(m.specifier)).map((m) => m.summary);
}
