// CodeAct consent: model-generated code may import only packages on the session's allowlist,
// never "whatever is installed" — mounting a pack grants it the step's capabilities. The step's
// imports are parsed from its code and become its declaration only if every one is allowed. The
// prompt advertises exactly the allowed specifiers, using the catalog's manifest-derived one-line
// tier (never SKILL.md text).

import type { SandboxModuleSummary } from '../protocol/catalog.ts';
import type { SandboxModuleDeclaration } from '../protocol/declaration.ts';
import { fail, ok, type Result } from '../protocol/result.ts';
import { analyzeUserCode } from '../sandbox/kernel/entry-transform.ts';

/** The declaration a CodeAct step runs with, or why it may not run. */
export function codeActDeclarations(
  code: string,
  sessionAllow: ReadonlySet<string>,
): Result<SandboxModuleDeclaration[], 'syntax-error' | 'dynamic-import' | 'session-not-allowed'> {
  const analyzed = analyzeUserCode(code);
  if (!analyzed.ok) return analyzed;
  const specifiers = [...new Set(analyzed.value.imports.map((i) => i.specifier))];
  const refused = specifiers.filter((s) => !sessionAllow.has(s));
  if (refused.length > 0) {
    const allowed = sessionAllow.size
      ? [...sessionAllow]
          .sort()
          .map((s) => JSON.stringify(s))
          .join(', ')
      : 'empty';
    return fail(
      'session-not-allowed',
      `The step imports ${refused.map((s) => JSON.stringify(s)).join(', ')}, which ${refused.length === 1 ? 'is' : 'are'} not on this session's package allowlist (${allowed}). Ask the user to allow the package for this session.`,
    );
  }
  return ok(specifiers.map((specifier) => ({ specifier })));
}

/** The prompt's package lines: one per session-allowed, ready module, from the one-line tier. */
export function sessionPackageLines(summaries: readonly SandboxModuleSummary[], sessionAllow: ReadonlySet<string>): string[] {
  return summaries
    .filter((s) => s.status === 'ready' && sessionAllow.has(s.specifier))
    .sort((a, b) => a.specifier.localeCompare(b.specifier))
    .map((s) => {
      const exports = s.exports?.length ? ` exports: ${s.exports.join(', ')}.` : '';
      return `- import from "${s.specifier}" (${s.kind === 'wasm' ? 'WASM, async exports' : 'JS'}): ${s.summary}${exports}`;
    });
}
