// Which saved Code nodes a version change breaks, from what the newer manifest no longer declares
// (packs.updates): a node that declares a removed module, or imports a removed WASM export by
// name. Shown in the update dialog next to each node, before anything changes — otherwise the
// breakage surfaces only when the node runs.

import type { UpdateCheck } from '../../../shared/contract/pack-schemas.ts';
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
