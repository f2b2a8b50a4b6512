// Turns a Code node's source into the entry module the kernel evaluates. User code may `import`
// declared packs, `return` a value and `await` at top level; none of that is valid inside a plain
// module body, so the code is parsed (acorn), its static imports are moved to module top level
// and the rest becomes the body of an async IIFE whose value is the module's default export.
//
// Positions matter: users must see errors at their own line and column. The transform only
// inserts text (it never re-prints the AST) and keeps a segment map from generated offsets back
// to the user's offsets. Imports are blanked in place and re-emitted after the IIFE: ES imports
// are hoisted wherever they appear, so their position in the entry does not change semantics.

import { parse, type Node, type Program, type Options } from 'acorn';
import { recursive, base } from 'acorn-walk';
import { fail, ok, type Result } from '../../protocol/result.ts';
import { WASM_BRIDGE_GLOBAL } from '../../protocol/wasm-bridge.ts';
import { BIND_INPUTS_NAME, INPUTS_MODULE_ID } from './inputs-module.ts';

/** The module name the entry is evaluated under; stack frames carry it. */
export const ENTRY_MODULE_NAME = 'sandbox:entry';

export interface UserImport {
  readonly specifier: string;
  readonly line: number;
  readonly column: number;
}

export interface EntryModule {
  readonly source: string;
  /** The user's code the entry was built from (positions are reported in it). */
  readonly code: string;
  readonly imports: readonly UserImport[];
  /** Generated (1-based line, 1-based column) → user's (line, column), or undefined outside user text. */
  readonly mapPosition: (line: number, column: number) => { line: number; column: number } | undefined;
}

const PARSE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
  allowHashBang: false,
  locations: true,
  // Keep parentheses as nodes so an inserted `return (` wraps exactly the user's expression.
  preserveParens: true,
};

type AnyNode = Node & Record<string, unknown>;

interface Segment {
  readonly genStart: number;
  readonly origStart: number;
  readonly length: number;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function offsetToPosition(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
}

function position(node: AnyNode): { line: number; column: number } {
  const loc = node.loc;
  return loc ? { line: loc.start.line, column: loc.start.column + 1 } : { line: 1, column: 1 };
}

/** Parse-only analysis shared by the transform, validation and CodeAct: imports and static errors. */
export function analyzeUserCode(code: string): Result<{ program: Program; imports: UserImport[] }, 'syntax-error' | 'dynamic-import'> {
  let program: Program;
  try {
    program = parse(code, PARSE_OPTIONS);
  } catch (error) {
    const e = error as { message?: string; loc?: { line: number; column: number } };
    const raw = (e.message ?? 'invalid syntax').replace(/\s*\(\d+:\d+\)$/, '');
    const where = e.loc ? ` (line ${e.loc.line}, column ${e.loc.column + 1})` : '';
    return fail('syntax-error', `Syntax error: ${raw}${where}.`);
  }
  const imports: UserImport[] = [];
  for (const statement of program.body as AnyNode[]) {
    if (statement.type === 'ImportDeclaration') {
      const source = statement.source as AnyNode & { value: string };
      imports.push({ specifier: String(source.value), ...position(statement) });
    } else if (statement.type.startsWith('Export')) {
      const at = position(statement);
      return fail('syntax-error', `Syntax error: Code node code cannot use "export"; return the result instead (line ${at.line}, column ${at.column}).`);
    }
  }
  let dynamic: AnyNode | undefined;
  recursive(
    program,
    undefined,
    {
      ImportExpression(node) {
        dynamic ??= node as unknown as AnyNode;
      },
    },
    base,
  );
  if (dynamic) {
    const at = position(dynamic);
    return fail(
      'dynamic-import',
      `import() is not allowed in sandbox code; use a static import of a package declared on this node (line ${at.line}, column ${at.column}).`,
    );
  }
  return ok({ program, imports });
}

function hasTopLevelReturn(program: Program): boolean {
  let found = false;
  const skip = () => undefined;
  recursive(
    program,
    undefined,
    {
      ReturnStatement() {
        found = true;
      },
      FunctionDeclaration: skip,
      FunctionExpression: skip,
      ArrowFunctionExpression: skip,
      // Class bodies hold methods (functions) and static blocks, where `return` is not top level.
      ClassDeclaration: skip,
      ClassExpression: skip,
    },
    base,
  );
  return found;
}

// A node's code runs many times unchanged; the transform is deterministic, so keep the last few.
const CACHE_SIZE = 64;
const cache = new Map<string, Result<EntryModule, 'syntax-error' | 'dynamic-import'>>();

/** Build the entry module for `code` (memoized per code string). */
export function buildEntryModule(code: string): Result<EntryModule, 'syntax-error' | 'dynamic-import'> {
  const hit = cache.get(code);
  if (hit) {
    cache.delete(code);
    cache.set(code, hit);
    return hit;
  }
  const built = transform(code);
  cache.set(code, built);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return built;
}

function transform(code: string): Result<EntryModule, 'syntax-error' | 'dynamic-import'> {
  const analyzed = analyzeUserCode(code);
  if (!analyzed.ok) return analyzed;
  const { program, imports } = analyzed.value;
  const body = program.body as AnyNode[];

  // Insertions into the user text, by original offset; blanks replace import declarations.
  const inserts = new Map<number, string>();
  const blanks: Array<{ start: number; end: number }> = [];
  for (const statement of body) if (statement.type === 'ImportDeclaration') blanks.push({ start: statement.start, end: statement.end });

  if (!hasTopLevelReturn(program)) {
    const last = [...body].reverse().find((s) => s.type !== 'ImportDeclaration' && s.type !== 'EmptyStatement');
    if (last && last.type === 'ExpressionStatement') {
      const expression = last.expression as AnyNode;
      inserts.set(expression.start, 'return (');
      inserts.set(expression.end, ')');
    }
  }

  // The run's inputs are bound here, once every import has evaluated (inputs-module.ts).
  const prefix = `${BIND_INPUTS_NAME}(); delete globalThis[${JSON.stringify(WASM_BRIDGE_GLOBAL)}]; export default await (async () => {`;
  const segments: Segment[] = [];
  let generated = prefix;
  const cuts = [...new Set([0, code.length, ...inserts.keys(), ...blanks.flatMap((b) => [b.start, b.end])])].sort((a, b) => a - b);
  for (let i = 0; i < cuts.length; i++) {
    const at = cuts[i] ?? 0;
    const insert = inserts.get(at);
    if (insert !== undefined) generated += insert;
    const next = cuts[i + 1];
    if (next === undefined) break;
    const piece = code.slice(at, next);
    const blanked = blanks.some((b) => at >= b.start && next <= b.end);
    segments.push({ genStart: generated.length, origStart: at, length: piece.length });
    generated += blanked ? piece.replace(/[^\n\r]/g, ' ') : piece;
  }
  generated += '\n})();\n';
  for (const b of blanks) generated += `${code.slice(b.start, b.end)}\n`;
  generated += `import { bind as ${BIND_INPUTS_NAME} } from ${JSON.stringify(INPUTS_MODULE_ID)};\n`;

  const genStarts = lineStarts(generated);
  const userStarts = lineStarts(code);
  const mapPosition = (line: number, column: number) => {
    const lineStart = genStarts[line - 1];
    if (lineStart === undefined) return undefined;
    const offset = lineStart + column - 1;
    // quickjs-ng reports the module's own start (1:1) when it has no position for an opcode; that
    // is our prefix, never user text, so it has no user position.
    if (offset < prefix.length) return undefined;
    const segment = segments.find((s) => offset >= s.genStart && offset < s.genStart + Math.max(s.length, 1));
    if (segment) return offsetToPosition(userStarts, segment.origStart + (offset - segment.genStart));
    // Inside inserted text (`return (`): report the user's text that follows it on the same line.
    const next = segments.find((s) => s.genStart > offset && s.length > 0);
    const lineEnd = genStarts[line] ?? generated.length;
    if (next && next.genStart < lineEnd) return offsetToPosition(userStarts, next.origStart);
    return undefined;
  };
  return ok({ source: generated, code, imports, mapPosition });
}
