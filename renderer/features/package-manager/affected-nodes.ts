// Before an uninstall or update acts, the user sees which saved workflows and Code nodes declare
// the pack's specifiers. A specifier belongs to a pack when it is the pack's name or the name
// followed by "/module" — the same rule the catalog resolves by — so nodes that declare a module
// the pack no longer provides (or provides as skipped) are listed too.

import type { Workflow } from '../../../shared/protocol/workflow.ts';

export interface AffectedNode {
  readonly workflow: string;
  readonly nodeId: string;
  readonly specifiers: readonly string[];
}

export function belongsToPack(specifier: string, packName: string): boolean {
  return specifier === packName || specifier.startsWith(`${packName}/`);
}

export function affectedNodes(packName: string, workflows: readonly { name: string; workflow: Workflow }[]): AffectedNode[] {
  const out: AffectedNode[] = [];
  for (const { name, workflow } of workflows) {
    for (const node of workflow.nodes) {
      const specifiers = node.packages.map((d) => d.specifier).filter((s) => belongsToPack(s, packName));
      if (specifiers.length > 0) out.push({ workflow: name, nodeId: node.id, specifiers });
    }
  }
  return out;
}
