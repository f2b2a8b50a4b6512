// Offline validation of a workflow against the catalog, before anything runs: the courtesy layer
// in front of the loader (which holds the boundary at run time either way). Pure: the catalog is
// injected, so the CLI, the app and the browser validate with the same rules.
//
// Per Code node: code that does not parse or uses import() (error); a declared specifier no
// installed pack provides (error, naming the pack to install); an import the declaration lacks
// (error); a name imported from a declared module that the module does not export (error); a
// declaration the code never imports (warning); a recorded version or graph digest that differs
// from what is installed (warnings, each with its own message). Issues with a place in the code
// carry its line and column, so an editor can mark the line.

import type { SandboxModuleCatalog } from '../protocol/catalog.ts';
import type { CodeNode, ValidationIssue, Workflow } from '../protocol/workflow.ts';
import type { Node } from 'acorn';
import { analyzeUserCode } from '../sandbox/kernel/entry-transform.ts';
import { exportedNames } from '../sandbox/kernel/module-exports.ts';

type AnyNode = Node & Record<string, unknown>;
type Place = { line: number; column: number };

/** The analysis reports syntax errors as a sentence ending "(line L, column C)." */
function placeInMessage(message: string): Place | undefined {
  const match = /\(line (\d+), column (\d+)\)\.?$/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

function placeOf(node: AnyNode): Place | undefined {
  const loc = node.loc as { start: { line: number; column: number } } | undefined;
  return loc ? { line: loc.start.line, column: loc.start.column + 1 } : undefined;
}

/** The pack a specifier names: "@scope/name" or "name", before any module segment. */
export function packOfSpecifier(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

export function validateCodeNode(node: CodeNode, catalog: Pick<SandboxModuleCatalog, 'resolveForExecution'>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (severity: ValidationIssue['severity'], code: ValidationIssue['code'], message: string, specifier?: string, place?: Place) =>
    issues.push({ nodeId: node.id, severity, code, message, ...(specifier === undefined ? {} : { specifier }), ...(place ?? {}) });

  const analyzed = analyzeUserCode(node.code);
  const imported = analyzed.ok ? [...new Set(analyzed.value.imports.map((i) => i.specifier))] : [];
  if (!analyzed.ok) issue('error', analyzed.code, analyzed.message, undefined, placeInMessage(analyzed.message));

  const declared = new Set<string>();
  for (const declaration of node.packages) {
    declared.add(declaration.specifier);
    const resolution = catalog.resolveForExecution([declaration]);
    if (!resolution.ok) {
      const pack = resolution.packName ?? packOfSpecifier(declaration.specifier);
      // The version the node was saved with: the latest may no longer provide this module.
      const spec = declaration.resolvedPackVersion ? `${pack}@${declaration.resolvedPackVersion}, the version this node was saved with` : pack;
      const hint = resolution.code === 'unknown-specifier' ? ` Install the pack that provides it (${spec}).` : '';
      issue('error', resolution.code, `${resolution.message}${hint}`, declaration.specifier);
      continue;
    }
    const resolved = resolution.declarations.find((d) => d.specifier === declaration.specifier) ?? resolution.declarations[0];
    if (!resolved) continue;
    const module = resolution.modules[resolved.moduleId];
    if (analyzed.ok && module) {
      const names = exportedNames(module.source, module.digest);
      if (names !== undefined) {
        for (const statement of analyzed.value.program.body as unknown as AnyNode[]) {
          if (statement.type !== 'ImportDeclaration' || (statement.source as AnyNode).value !== declaration.specifier) continue;
          for (const spec of statement.specifiers as AnyNode[]) {
            if (spec.type === 'ImportNamespaceSpecifier') continue;
            const imported = spec.imported as AnyNode | undefined;
            const name = spec.type === 'ImportDefaultSpecifier' ? 'default' : imported?.type === 'Identifier' ? String(imported.name) : String(imported?.value);
            if (names.includes(name)) continue;
            const offer = names.length === 0 ? 'it exports nothing' : `its exports are ${names.map((n) => `"${n}"`).join(', ')}`;
            issue(
              'error',
              'import-unknown-export',
              `"${declaration.specifier}" has no export named "${name}"; ${offer}.`,
              declaration.specifier,
              placeOf(spec),
            );
          }
        }
      }
    }
    if (declaration.resolvedPackVersion !== undefined && declaration.resolvedPackVersion !== resolved.packVersion) {
      issue(
        'warning',
        'version-mismatch',
        `"${declaration.specifier}" was saved with ${resolved.packName}@${declaration.resolvedPackVersion}; ${resolved.packVersion} is installed and will be used.`,
        declaration.specifier,
      );
    }
    if (declaration.contentDigest !== undefined && declaration.contentDigest !== resolved.digest) {
      issue(
        'warning',
        'digest-mismatch',
        `"${declaration.specifier}" differs from the content the workflow was saved with (digest ${declaration.contentDigest.slice(0, 12)}…, installed ${resolved.digest.slice(0, 12)}…); review ${resolved.packName} before running.`,
        declaration.specifier,
      );
    }
  }
  for (const specifier of imported) {
    if (!declared.has(specifier)) {
      const first = analyzed.ok ? analyzed.value.imports.find((i) => i.specifier === specifier) : undefined;
      issue(
        'error',
        'import-undeclared',
        `The code imports "${specifier}", which is not in this node's packages declaration; add it to the declaration.`,
        specifier,
        first ? { line: first.line, column: first.column } : undefined,
      );
    }
  }
  if (analyzed.ok) {
    for (const specifier of declared) {
      if (!imported.includes(specifier)) issue('warning', 'declared-unused', `"${specifier}" is declared but the code never imports it.`, specifier);
    }
  }
  return issues;
}

export function validateWorkflow(workflow: Workflow, catalog: Pick<SandboxModuleCatalog, 'resolveForExecution'>): ValidationIssue[] {
  return workflow.nodes.flatMap((node) => validateCodeNode(node, catalog));
}
