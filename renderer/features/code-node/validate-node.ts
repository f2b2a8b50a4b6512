// Inline validation while editing a Code node, with the rules `sandbox-packs validate` applies
// (shared/sandbox's entry analysis for syntax and imports; the catalog's summaries for what is
// installed): syntax and import() errors, declared specifiers no pack provides or that were
// skipped, imports the declaration lacks, declarations never imported, and version/digest drift.
// Runs in the page on every keystroke, so it asks main for nothing; `code.run` resolves again
// and holds the boundary either way.

import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { analyzeUserCode } from '../../../shared/sandbox/entry-transform.ts';
import { declarationState, driftMessage } from './declarations.ts';

export interface NodeIssue {
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
  readonly specifier?: string;
}

export function validateNode(code: string, packages: readonly SandboxModuleDeclaration[], modules: ReadonlyMap<string, ModuleSummary>): NodeIssue[] {
  const issues: NodeIssue[] = [];
  const analyzed = analyzeUserCode(code);
  if (!analyzed.ok) issues.push({ severity: 'error', code: analyzed.code, message: analyzed.message });
  const imported = analyzed.ok ? [...new Set(analyzed.value.imports.map((i) => i.specifier))] : [];
  const declared = new Set(packages.map((d) => d.specifier));

  for (const declaration of packages) {
    const state = declarationState(declaration, modules);
    const specifier = declaration.specifier;
    if (state.kind === 'unavailable') {
      issues.push({ severity: 'error', code: 'unknown-specifier', message: `No installed pack provides "${specifier}"; install the pack that provides it, or remove it from this node.`, specifier });
    } else if (state.kind === 'skipped') {
      issues.push({ severity: 'error', code: 'module-skipped', message: `"${specifier}" was skipped when its pack was discovered: ${state.module.reason ?? state.module.code ?? 'no reason given'}.`, specifier });
    } else {
      for (const drift of state.drift) issues.push({ severity: 'warning', code: drift.kind === 'version' ? 'version-mismatch' : 'digest-mismatch', message: driftMessage(specifier, drift), specifier });
    }
  }
  for (const specifier of imported) {
    if (!declared.has(specifier)) {
      issues.push({ severity: 'error', code: 'import-undeclared', message: `The code imports "${specifier}", which is not in this node's packages; select it in the package picker.`, specifier });
    }
  }
  if (analyzed.ok) {
    for (const specifier of declared) {
      if (!imported.includes(specifier)) issues.push({ severity: 'warning', code: 'declared-unused', message: `"${specifier}" is selected but the code never imports it.`, specifier });
    }
  }
  return issues;
}
