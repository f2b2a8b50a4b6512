// Which saved Code nodes a version change breaks, from what the newer manifest no longer declares
// (packs.updates): a node that declares a removed module, or imports a removed WASM export by
// name. Shown in the update dialog next to each node, before anything changes — otherwise the
// breakage surfaces only when the node runs. Also what the new version can do outside the sandbox
// (host code, install scripts) that this one cannot, and whether it waits for trust afterwards.

import type { InstalledPack, UpdateCheck } from '../../../shared/contract/pack-schemas.ts';
import type { Workflow } from '../../../shared/protocol/workflow.ts';

export interface BrokenNode {
  readonly workflow: string;
  readonly nodeId: string;
  /** One sentence per thing the node uses that the new version removes. */
  readonly reasons: readonly string[];
}

const NAMED_IMPORT = /import\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']/g;

/** Names a node's code imports from `specifier` with `import { a, b as c } from "…"`. */
export function namedImports(code: string, specifier: string): string[] {
  const names: string[] = [];
  for (const match of code.matchAll(NAMED_IMPORT)) {
    if (match[2] !== specifier) continue;
    for (const part of (match[1] ?? '').split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)[0]
        ?.trim();
      if (name) names.push(name);
    }
  }
  return names;
}

export function breakingNodes(
  check: Pick<UpdateCheck, 'latest' | 'removedModules' | 'removedExports'>,
  workflows: readonly { name: string; workflow: Workflow }[],
): BrokenNode[] {
  const version = check.latest ?? 'the new version';
  const out: BrokenNode[] = [];
  for (const { name, workflow } of workflows) {
    for (const node of workflow.nodes) {
      const declared = new Set(node.packages.map((d) => d.specifier));
      const reasons: string[] = [];
      for (const specifier of check.removedModules) {
        if (declared.has(specifier)) reasons.push(`uses ${specifier}, which ${version} removes`);
      }
      for (const { specifier, names } of check.removedExports) {
        if (!declared.has(specifier)) continue;
        const used = namedImports(node.code, specifier).filter((n) => names.includes(n));
        for (const n of used) reasons.push(`imports ${n} from ${specifier}, which ${version} no longer exports`);
      }
      if (reasons.length > 0) out.push({ workflow: name, nodeId: node.id, reasons });
    }
  }
  return out;
}

export interface CapabilityChange {
  /** One sentence per thing the new version can do that the installed one cannot (host code, install scripts). */
  readonly gains: readonly string[];
  /** The new version waits for the user's trust: until then the pack is inactive and its modules stop working. */
  readonly inactiveAfter: boolean;
}

/**
 * What an update changes outside the sandbox, from the new manifest (packs.updates) against the
 * installed row. Consent covers one exact artifact, so any new version with host code waits for
 * trust again; a sandbox-only version's scripts never run, which is said rather than hidden.
 */
export function capabilityChange(
  pack: Pick<InstalledPack, 'installMode' | 'scripts'>,
  check: Pick<UpdateCheck, 'latest' | 'latestMode' | 'latestRegister' | 'latestScripts'>,
): CapabilityChange {
  const version = check.latest ?? 'The new version';
  const gains: string[] = [];
  if (check.latestRegister !== undefined && pack.installMode === 'sandbox-only') {
    gains.push(
      `${version} adds host code: its register entry ${check.latestRegister} runs on your computer, outside the sandbox, each time the app loads packs.`,
    );
  }
  const had = new Set(pack.scripts.filter((s) => s.own).map((s) => `${s.event}\n${s.command}`));
  const runs = check.latestMode !== undefined && check.latestMode !== 'sandbox-only';
  for (const script of check.latestScripts ?? []) {
    if (had.has(`${script.event}\n${script.command}`)) continue;
    gains.push(
      runs
        ? `${version} adds the install script ${script.event}: ${script.command} — it runs on your computer when you trust the pack.`
        : `${version} declares the install script ${script.event}: ${script.command} — it is not run, since a sandbox-only pack installs with scripts off.`,
    );
  }
  return { gains, inactiveAfter: runs };
}
