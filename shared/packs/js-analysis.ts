// Static checks of one pack JS source, without executing it. This is the courtesy layer that
// turns what the loader would deny at run time into an early, named discovery error: dynamic
// import, require, Node builtins, the private WASM bridge and any import leaving the pack. It
// also produces the module's complete import map (request → target), which the loader later
// enforces, so a request the analyzer never saw can never resolve.
//
// `require` is refused outright in authored code only. In an npm bundle it is almost always a
// feature test (esbuild's `__require` shim reads `typeof require`, UMD wrappers test it) that
// the guest answers "undefined"; there the compiler's scope-aware scan (electron/compiler/
// global-scan.ts) tells such a test from a call at import time, and the admission probe decides.

import { parse, version as acornVersion, type Node, type Program } from 'acorn';
import { full } from 'acorn-walk';
import { fail, ok, type Result } from '../protocol/result.ts';
import { WASM_BRIDGE_SPECIFIER } from '../protocol/wasm-bridge.ts';
import { isNodeBuiltinRequest } from './node-builtins.ts';
import { isRelativeRequest, printable, resolveRelative } from './pack-path.ts';

export type JsAnalysisCode =
  | 'js-syntax-error'
  | 'js-dynamic-import'
  | 'js-require'
  | 'js-node-import'
  | 'js-import-outside-pack'
  | 'js-import-unresolved'
  | 'js-bridge-import';

/** What an import request of a pack file points at, inside the same pack. */
export type ImportTarget =
  | { readonly kind: 'public'; readonly specifier: string }
  | { readonly kind: 'internal'; readonly path: string };

export interface JsAnalysisContext {
  readonly packName: string;
  /** Public specifiers of the pack (valid names only). */
  readonly publicSpecifiers: ReadonlySet<string>;
  /** Canonical pack-relative paths of the pack's `internal` files. */
  readonly internalPaths: ReadonlySet<string>;
  /** Pack-relative path of the file being analyzed; undefined for sources without a file (npm bundles). */
  readonly filePath?: string;
  /** How the file is named in messages ("sandbox/geo.js"). */
  readonly displayName: string;
  /** An npm bundle: `require` is left to the compiler's scope-aware scan and probe (see the header). */
  readonly npmBundle?: boolean;
}

export interface JsAnalysis {
  /** Every static import request exactly as written → its target. */
  readonly imports: ReadonlyMap<string, ImportTarget>;
  /**
   * Names the module exports, sorted, when they are statically known (no `export *`); plain
   * identifiers only. For the UI and summaries, never for the prompt's disclosure line.
   */
  readonly exportNames?: readonly string[];
}

/**
 * Names this analyzer and the parser under it. A remembered verdict (pack-graph.ts) is reused only
 * under the same id, so bump the number whenever what analyzeJs accepts or reports changes.
 */
export const JS_ANALYZER_ID = `js-analysis/2;acorn@${acornVersion}`;

const EXPORT_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

interface Located {
  readonly start: number;
}

/** Parse and check `source`. The first problem found (in source order) is reported, with line:column. */
export function analyzeJs(source: string, ctx: JsAnalysisContext): Result<JsAnalysis, JsAnalysisCode> {
  let program: Program;
  try {
    program = parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: false, allowHashBang: true });
  } catch (error) {
    const message = error instanceof SyntaxError ? error.message : String(error);
    return fail('js-syntax-error', `${ctx.displayName}: ${message}`);
  }

  const lineStarts = computeLineStarts(source);
  const where = (node: Located): string => {
    const { line, column } = lineColumn(lineStarts, node.start);
    return `${ctx.displayName}:${line}:${column}`;
  };

  const problems: { start: number; code: JsAnalysisCode; message: string }[] = [];
  const requests: { request: string; node: Located }[] = [];
  const exportNames = new Set<string>();
  let starExport = false;
  for (const statement of program.body) collectExports(statement, exportNames, () => (starExport = true));

  full(program, (node: Node) => {
    switch (node.type) {
      case 'ImportExpression':
        problems.push({ start: node.start, code: 'js-dynamic-import', message: `${where(node)}: import() is not allowed; use a static import of a file of this pack.` });
        break;
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration': {
        const source = (node as unknown as { source?: { value?: unknown; start: number } | null }).source;
        if (source && typeof source.value === 'string') requests.push({ request: source.value, node: source });
        break;
      }
      case 'Identifier':
        if (!ctx.npmBundle && (node as unknown as { name: string }).name === 'require') {
          problems.push({ start: node.start, code: 'js-require', message: `${where(node)}: require is not available; use a static import.` });
        }
        break;
      case 'MemberExpression': {
        const member = node as unknown as { object: { type: string; name?: string }; property: { type: string; name?: string; value?: unknown }; computed: boolean };
        const propertyName = member.computed ? member.property.value : member.property.name;
        if (!ctx.npmBundle && member.object.type === 'Identifier' && member.object.name === 'module' && propertyName === 'require') {
          problems.push({ start: node.start, code: 'js-require', message: `${where(node)}: module.require is not available; use a static import.` });
        }
        break;
      }
      default:
        break;
    }
  });

  const imports = new Map<string, ImportTarget>();
  for (const { request, node } of requests) {
    const classified = classify(request, ctx);
    if (classified.ok) imports.set(request, classified.value);
    else problems.push({ start: node.start, code: classified.code, message: `${where(node)}: ${classified.message}` });
  }

  problems.sort((a, b) => a.start - b.start);
  const first = problems[0];
  if (first) return fail(first.code, first.message);
  const names = [...exportNames].filter((name) => EXPORT_NAME.test(name)).sort();
  return ok(starExport ? { imports } : { imports, exportNames: names });
}

function collectExports(statement: Node, names: Set<string>, onStar: () => void): void {
  const node = statement as unknown as {
    type: string;
    exported?: { type: string; name?: string; value?: unknown } | null;
    declaration?: { type: string; id?: { name?: string } | null; declarations?: { id: Node }[] } | null;
    specifiers?: { exported: { type: string; name?: string; value?: unknown } }[];
  };
  const nameOf = (id: { type: string; name?: string; value?: unknown }): string | undefined =>
    id.type === 'Identifier' ? id.name : typeof id.value === 'string' ? id.value : undefined;
  if (node.type === 'ExportDefaultDeclaration') names.add('default');
  if (node.type === 'ExportAllDeclaration') {
    if (node.exported) {
      const name = nameOf(node.exported);
      if (name !== undefined) names.add(name);
    } else onStar();
  }
  if (node.type !== 'ExportNamedDeclaration') return;
  for (const specifier of node.specifiers ?? []) {
    const name = nameOf(specifier.exported);
    if (name !== undefined) names.add(name);
  }
  const declaration = node.declaration;
  if (!declaration) return;
  if (declaration.id?.name !== undefined) names.add(declaration.id.name);
  for (const declarator of declaration.declarations ?? []) collectPatternNames(declarator.id, names);
}

function collectPatternNames(pattern: Node, names: Set<string>): void {
  const node = pattern as unknown as {
    type: string;
    name?: string;
    properties?: ({ type: string; value?: Node; argument?: Node })[];
    elements?: (Node | null)[];
    argument?: Node;
    left?: Node;
  };
  switch (node.type) {
    case 'Identifier':
      if (node.name !== undefined) names.add(node.name);
      break;
    case 'ObjectPattern':
      for (const property of node.properties ?? []) {
        const inner = property.type === 'RestElement' ? property.argument : property.value;
        if (inner) collectPatternNames(inner, names);
      }
      break;
    case 'ArrayPattern':
      for (const element of node.elements ?? []) if (element) collectPatternNames(element, names);
      break;
    case 'RestElement':
      if (node.argument) collectPatternNames(node.argument, names);
      break;
    case 'AssignmentPattern':
      if (node.left) collectPatternNames(node.left, names);
      break;
    default:
      break;
  }
}

function classify(request: string, ctx: JsAnalysisContext): Result<ImportTarget, JsAnalysisCode> {
  const shown = `"${printable(request)}"`;
  if (request === WASM_BRIDGE_SPECIFIER) {
    return fail('js-bridge-import', `import of ${shown} is not allowed; import the WASM entry's specifier instead.`);
  }
  if (isNodeBuiltinRequest(request)) {
    return fail('js-node-import', `import of Node builtin ${shown}; sandbox code has no Node APIs.`);
  }
  if (ctx.publicSpecifiers.has(request)) return ok({ kind: 'public', specifier: request });
  if (isRelativeRequest(request)) {
    if (ctx.filePath === undefined) {
      return fail('js-import-unresolved', `relative import ${shown} has no file to be relative to.`);
    }
    const resolved = resolveRelative(ctx.filePath, request);
    if (!resolved.ok) {
      const code = resolved.code === 'escape' ? 'js-import-outside-pack' : 'js-import-unresolved';
      return fail(code, `import ${shown}: ${resolved.message}.`);
    }
    if (ctx.internalPaths.has(resolved.value)) return ok({ kind: 'internal', path: resolved.value });
    return fail(
      'js-import-unresolved',
      `import ${shown} resolves to "${resolved.value}", which is not in the pack's "internal" list; list it there, or import a public entry by its specifier.`,
    );
  }
  if (request === ctx.packName || request.startsWith(`${ctx.packName}/`)) {
    return fail('js-import-unresolved', `import ${shown} is not a module this pack declares.`);
  }
  return fail('js-import-outside-pack', `import ${shown} is outside the pack; a pack may import only its own files.`);
}

function computeLineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    const ch = source.charCodeAt(i);
    if (ch === 10 || ch === 0x2028 || ch === 0x2029 || (ch === 13 && source.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

function lineColumn(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lineStarts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (lineStarts[lo] ?? 0) + 1 };
}
