// Where the cursor is for completing a module's exports outside a finished import statement,
// read from the text: after `name.` where `name` is a default or namespace import (its members),
// or inside `import { …` before any `from` is typed (exports of every module, the statement
// finished on choosing one). And the import line the package picker writes for a module it
// adds. Pure text, so it is tested without a DOM; what the regexes do not recognise gets nothing.

import type { ModuleSummary } from '../../../shared/contract/schemas.ts';

export interface ImportBinding {
  readonly specifier: string;
  /** `import X from` binds the default export; `import * as X from` the module namespace. */
  readonly kind: 'default' | 'namespace';
}

const IDENT = '[A-Za-z_$][A-Za-z0-9_$]*';
const IMPORT_STATEMENT = new RegExp(`\\bimport\\s+(?:(${IDENT})\\s*(?:,\\s*)?)?(?:\\*\\s*as\\s+(${IDENT})|\\{[^}]*\\})?\\s*from\\s*["']([^"'\\n]+)["']`, 'g');

/** The default and namespace bindings the code's import statements make, by local name. */
export function importBindings(code: string): Map<string, ImportBinding> {
  const bindings = new Map<string, ImportBinding>();
  for (const match of code.matchAll(IMPORT_STATEMENT)) {
    const [, defaultName, namespaceName, specifier] = match;
    if (specifier === undefined) continue;
    if (defaultName !== undefined) bindings.set(defaultName, { specifier, kind: 'default' });
    if (namespaceName !== undefined) bindings.set(namespaceName, { specifier, kind: 'namespace' });
  }
  return bindings;
}

const MEMBER_BEFORE = new RegExp(`(?<![.\\w$])(${IDENT})\\s*\\.\\s*([A-Za-z0-9_$]*)$`);

/** `Papa.pa|` → the object's name and the partial member typed after the dot. */
export function memberContext(before: string): { readonly object: string; readonly typed: string } | undefined {
  const match = MEMBER_BEFORE.exec(before);
  if (!match?.[1]) return undefined;
  return { object: match[1], typed: match[2] ?? '' };
}

const OPEN_NAMES_BEFORE = /\bimport\s*\{([^}]*)$/;

/** `import { d|` with no `} from "…"` after it yet: the partial name, and the names already listed. */
export function openNamedImport(
  before: string,
  after: string,
): { readonly typed: string; readonly already: readonly string[]; readonly closed: boolean } | undefined {
  const names = OPEN_NAMES_BEFORE.exec(before);
  if (!names) return undefined;
  const rest = /^[^\n]*/.exec(after)?.[0] ?? '';
  if (/^[^}]*\}\s*from\b/.test(rest)) return undefined;
  const inside = names[1] ?? '';
  if (/\bas\s+[A-Za-z0-9_$]*$/.test(inside)) return undefined;
  const typed = /[A-Za-z0-9_$]*$/.exec(inside)?.[0] ?? '';
  const already = inside
    .split(',')
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '' && name !== typed);
  return { typed, already, closed: rest.includes('}') };
}

const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof let new null return super switch this throw true try typeof var void while with yield await static implements interface package private protected public arguments eval'.split(
    ' ',
  ),
);

/** A local name for a module: its subpath, else its package name without scope and "sandbox-", camelCased. */
export function localNameFor(specifier: string, code: string): string {
  const parts = specifier.split('/');
  const scoped = specifier.startsWith('@');
  const subpath = parts.slice(scoped ? 2 : 1);
  const base = (subpath.at(-1) ?? parts[scoped ? 1 : 0] ?? 'module').replace(/^sandbox-/, '');
  let name = base.replace(/[^A-Za-z0-9_$]+([A-Za-z0-9_$])?/g, (_m, next: string | undefined) => (next ?? '').toUpperCase());
  if (name === '' || /^[0-9]/.test(name)) name = `_${name}`;
  if (RESERVED.has(name)) name = `${name}Module`;
  const used = (candidate: string) => new RegExp(`(?<![\\w$])${candidate.replace(/\$/g, '\\$')}(?![\\w$])`).test(code);
  let candidate = name;
  for (let n = 2; used(candidate); n++) candidate = `${name}${n}`;
  return candidate;
}

/** Whether the code already imports the specifier (in any form). */
export function importsSpecifier(code: string, specifier: string): boolean {
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\b(?:from|import)\\s*["']${quoted}["']`).test(code);
}

/**
 * The code with an import of the module added after its last leading import (or at the top):
 * the default export when the module has one, else its namespace. Unchanged when already imported.
 */
export function withImportLine(code: string, module: Pick<ModuleSummary, 'specifier' | 'exports'>): string {
  if (importsSpecifier(code, module.specifier)) return code;
  const name = localNameFor(module.specifier, code);
  const line = module.exports?.includes('default') ? `import ${name} from "${module.specifier}";` : `import * as ${name} from "${module.specifier}";`;
  const lines = code.split('\n');
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    const text = (lines[i] ?? '').trim();
    if (/^import\b/.test(text)) {
      // A statement over several lines ends at the line with its specifier.
      while (i < lines.length - 1 && !/["']/.test(lines[i] ?? '')) i++;
      at = i + 1;
    } else if (text !== '' && !text.startsWith('//')) break;
  }
  lines.splice(at, 0, line);
  return lines.join('\n');
}
