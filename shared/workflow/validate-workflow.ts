// Offline validation of a workflow against the catalog, before anything runs: the courtesy layer
// in front of the loader (which holds the boundary at run time either way). Pure: the catalog is
// injected, so the CLI, the app and the browser validate with the same rules.
//
// Per Code node: code that does not parse or uses import() (error); a declared specifier or an
// import no installed pack provides (error: install it, or the scoped name it probably meant); a
// Node built-in import (error: never available); an installed import the declaration lacks (error:
// add it); a name a declared module does not export (error); a declaration never imported, and a
// recorded version or digest that differs from what is installed (warnings). Issues with a place
// in the code carry its line and column, so an editor can mark the line.

import type { SandboxModuleCatalog } from '../protocol/catalog.ts';
import type { CodeNode, ValidationIssue, Workflow } from '../protocol/workflow.ts';
import type { Node } from 'acorn';
import { analyzeUserCode } from '../sandbox/kernel/entry-transform.ts';
import { exportedNames } from '../sandbox/kernel/module-exports.ts';
import { isNodeBuiltinRequest } from '../packs/node-builtins.ts';

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

/** What validation reads: resolution, and (for "did you mean") the installed modules' specifiers. */
export type ValidationCatalog = Pick<SandboxModuleCatalog, 'resolveForExecution'> & Partial<Pick<SandboxModuleCatalog, 'summaries'>>;

export interface ValidationOptions {
  /** Specifiers that can be installed (the registry index), offered as "did you mean" after the installed ones. */
  readonly available?: readonly string[];
}

/** The unscoped tail of a specifier's pack part, with its module path: "@scope/a/b" → "a/b". */
const unscoped = (specifier: string): string => (specifier.startsWith('@') ? specifier.split('/').slice(1).join('/') : specifier);

/**
 * The scoped specifier a bare or mistyped one probably means: an installed (else available) one
 * whose unscoped part is the same ("sandbox-yaml" → "@nodetool-ai/sandbox-yaml").
 */
export function didYouMean(specifier: string, installed: readonly string[], available: readonly string[] = []): string | undefined {
  const tail = unscoped(specifier);
  for (const list of [installed, available]) {
    const found = list.find((candidate) => candidate !== specifier && candidate.startsWith('@') && unscoped(candidate) === tail);
    if (found) return found;
  }
  return undefined;
}

export function validateCodeNode(node: CodeNode, catalog: ValidationCatalog, options: ValidationOptions = {}): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (
    severity: ValidationIssue['severity'],
    code: ValidationIssue['code'],
    message: string,
    specifier?: string,
    place?: Place,
    suggestion?: string,
  ) =>
    issues.push({
      nodeId: node.id,
      severity,
      code,
      message,
      ...(specifier === undefined ? {} : { specifier }),
      ...(suggestion === undefined ? {} : { suggestion }),
      ...(place ?? {}),
    });
  const installed = (catalog.summaries?.() ?? []).filter((m) => m.status === 'ready').map((m) => m.specifier);
  const available = options.available ?? [];
  /** The sentence for a specifier no installed pack provides: a likely meant name, else the pack to install. */
  const notInstalled = (specifier: string, saved?: { pack?: string; version?: string }): { hint: string; suggestion?: string } => {
    const meant = didYouMean(specifier, installed, available);
    if (meant === undefined) {
      const pack = saved?.pack ?? packOfSpecifier(specifier);
      // The version the node was saved with: the latest may no longer provide this module.
      const spec = saved?.version ? `${pack}@${saved.version}, the version this node was saved with` : pack;
      return { hint: ` Install the pack that provides it (${spec}).` };
    }
    const where = installed.includes(meant) ? 'which is installed' : `from ${packOfSpecifier(meant)}, which you can install`;
    return { hint: ` Did you mean "${meant}" (${where})?`, suggestion: meant };
  };

  const analyzed = analyzeUserCode(node.code);
  const imported = analyzed.ok ? [...new Set(analyzed.value.imports.map((i) => i.specifier))] : [];
  if (!analyzed.ok) issue('error', analyzed.code, analyzed.message, undefined, placeInMessage(analyzed.message));

  const declared = new Set<string>();
  for (const declaration of node.packages) {
    declared.add(declaration.specifier);
    const resolution = catalog.resolveForExecution([declaration]);
    if (!resolution.ok) {
      const fix =
        resolution.code === 'unknown-specifier'
          ? notInstalled(declaration.specifier, {
              ...(resolution.packName ? { pack: resolution.packName } : {}),
              ...(declaration.resolvedPackVersion ? { version: declaration.resolvedPackVersion } : {}),
            })
          : { hint: '' };
      issue('error', resolution.code, `${resolution.message}${fix.hint}`, declaration.specifier, undefined, fix.suggestion);
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
      const place = first ? { line: first.line, column: first.column } : undefined;
      // The fix offered is the one that works: a Node built-in never does; a module no installed pack provides is installed first.
      if (isNodeBuiltinRequest(specifier)) {
        issue(
          'error',
          'js-node-import',
          `The code imports "${specifier}", a Node built-in: sandbox code has no Node APIs, so no declaration can make it available. Use the node's own capabilities (its workspace, fetch) instead.`,
          specifier,
          place,
        );
        continue;
      }
      const resolution = catalog.resolveForExecution([{ specifier }]);
      if (resolution.ok) {
        issue(
          'error',
          'import-undeclared',
          `The code imports "${specifier}", which is not in this node's packages declaration; add it to the declaration.`,
          specifier,
          place,
        );
        continue;
      }
      if (resolution.code !== 'unknown-specifier') {
        issue('error', resolution.code, `The code imports "${specifier}": ${resolution.message}`, specifier, place);
        continue;
      }
      const fix = notInstalled(specifier);
      issue('error', 'unknown-specifier', `The code imports "${specifier}", which no installed pack provides.${fix.hint}`, specifier, place, fix.suggestion);
    }
  }
  if (analyzed.ok) {
    for (const specifier of declared) {
      if (!imported.includes(specifier)) issue('warning', 'declared-unused', `"${specifier}" is declared but the code never imports it.`, specifier);
    }
  }
  return issues;
}

export function validateWorkflow(workflow: Workflow, catalog: ValidationCatalog, options: ValidationOptions = {}): ValidationIssue[] {
  return workflow.nodes.flatMap((node) => validateCodeNode(node, catalog, options));
}
