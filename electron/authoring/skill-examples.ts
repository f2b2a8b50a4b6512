// SKILL.md examples are tests. This file finds them and turns each one into the Code-node code
// `check` runs in the sandbox; it does no I/O and runs nothing (run-examples.ts does).
//
// Invariants: the generated code still computes what the example did (an assertion records the
// value of its statement and passes it on), and line numbers survive, so a sandbox error at
// "line N" of the generated code is SKILL.md line `firstLine + N - 1` (prepareBlock says how).

import { parse, type Comment, type Node, type Options } from 'acorn';
import { codePositionOf } from '../../shared/protocol/code-position.ts';

const PARSE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
  locations: true,
};

const JS_INFO = /^(?:js|javascript|mjs)$/i;
const ARROW = /^\s*(?:→|=>)\s*(.*?)\s*$/s;

/** The function name the generated code records assertions with. */
export const CHECK_FUNCTION = '__skillCheck';
const PRELUDE = `const __skillChecks = []; const ${CHECK_FUNCTION} = (line, value) => { __skillChecks.push({ line, value }); return value; }; const __skillValue = await (async () => { `;
const EPILOGUE = '\n})(); return { checks: __skillChecks, value: __skillValue };';

export interface CodeBlock {
  /** SKILL.md line of the opening fence (1-based). */
  readonly fenceLine: number;
  /** SKILL.md line of the block's first code line. */
  readonly firstLine: number;
  readonly info: string;
  readonly code: string;
}

export interface Assertion {
  /** SKILL.md line of the asserted statement's last line. */
  readonly line: number;
  /** The parsed JSON value after the arrow. */
  readonly expected: unknown;
  /** The text after the arrow, as written. */
  readonly text: string;
}

/** A problem found before anything runs, with the SKILL.md line it is on. */
export interface ExampleProblem {
  readonly code: 'syntax-error' | 'example-invalid';
  readonly line: number;
  readonly message: string;
}

export type PreparedExample =
  | {
      readonly kind: 'run';
      readonly block: CodeBlock;
      /** The pack specifiers the block imports: the run's packages declaration. */
      readonly specifiers: readonly string[];
      /** Code-node code; see the header for its shape. */
      readonly program: string;
      readonly assertions: readonly Assertion[];
    }
  | { readonly kind: 'skip'; readonly block: CodeBlock; readonly specifiers: readonly string[]; readonly reason: string }
  | { readonly kind: 'invalid'; readonly block: CodeBlock; readonly specifiers: readonly string[]; readonly problem: ExampleProblem };

/** Fenced code blocks of a Markdown text (``` or ~~~ fences, CommonMark's closing rule). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[1] as string;
    const info = (open[2] ?? '').trim();
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && (close[1] as string)[0] === fence[0] && (close[1] as string).length >= fence.length) break;
      body.push(line);
    }
    blocks.push({ fenceLine: i + 1, firstLine: i + 2, info, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** Does `source` (an import's string) name one of the pack's specifiers? */
const isPackSpecifier = (source: string, specifiers: ReadonlySet<string>): boolean => specifiers.has(source);

type AnyNode = Node & Record<string, unknown>;

/**
 * Every fenced JS block of SKILL.md that imports a pack specifier, prepared to run (or why not).
 * Which blocks: fenced code blocks whose info string starts with `js`, `javascript` or `mjs` and
 * that statically import at least one of the pack's specifiers. A block whose info string also
 * has the word `no-check` (```js no-check) is listed but not run: for an example that needs a
 * capability (fetch, workspace, secrets) no check grants.
 */
export function prepareExamples(markdown: string, packSpecifiers: readonly string[]): PreparedExample[] {
  const wanted = new Set(packSpecifiers);
  const out: PreparedExample[] = [];
  for (const block of codeBlocks(markdown)) {
    const words = block.info.split(/\s+/).filter(Boolean);
    if (!JS_INFO.test(words[0] ?? '')) continue;
    const prepared = prepareBlock(block, wanted, words.includes('no-check'));
    if (prepared) out.push(prepared);
  }
  return out;
}

/**
 * Assertions: a line comment that starts with `→` or `=>` (`// → [1, 2]`) asserts that the value
 * of the top-level statement ending on that line equals the JSON after the arrow. The statement
 * must be an expression (`f(x); // → 3`), a `return` (`return f(x); // → 3`), or a declaration of
 * one variable (`const n = f(x); // → 3`): its expression is wrapped in place as
 * `__skillCheck(<SKILL.md line>, (expression))`, which records the value and passes it on, so the
 * example still computes what it did. The recorded values leave the sandbox as JSON (as a node's
 * result does) and are compared on the host, ignoring key order.
 *
 * Line numbers survive: the block's imports are blanked in place and re-emitted after the body
 * (the entry transform hoists imports anyway), the body becomes an async arrow whose value is the
 * example's own `return`, and everything added sits on the block's first and last lines. A
 * sandbox error at "line N" of the generated code is therefore SKILL.md line `firstLine + N - 1`.
 */
function prepareBlock(block: CodeBlock, wanted: ReadonlySet<string>, noCheck: boolean): PreparedExample | undefined {
  const at = (blockLine: number): number => block.firstLine + blockLine - 1;
  const comments: Comment[] = [];
  let program: AnyNode;
  try {
    program = parse(block.code, { ...PARSE_OPTIONS, onComment: comments }) as unknown as AnyNode;
  } catch (error) {
    // Unparseable: it is an example only if it visibly imports a pack specifier.
    const named = [...wanted].filter((s) => block.code.includes(`"${s}"`) || block.code.includes(`'${s}'`));
    if (named.length === 0) return undefined;
    const e = error as { message?: string; loc?: { line: number; column: number } };
    const line = e.loc ? at(e.loc.line) : block.firstLine;
    const problem: ExampleProblem = {
      code: 'syntax-error',
      line,
      message: `SKILL.md line ${line}: ${(e.message ?? 'invalid syntax').replace(/\s*\(\d+:\d+\)$/, '')}.`,
    };
    return { kind: 'invalid', block, specifiers: named, problem };
  }
  const body = program.body as AnyNode[];
  const imports = body.filter((s) => s.type === 'ImportDeclaration');
  const specifiers = [...new Set(imports.map((s) => String((s.source as { value: unknown }).value)).filter((s) => isPackSpecifier(s, wanted)))];
  if (specifiers.length === 0) return undefined;
  if (noCheck) return { kind: 'skip', block, specifiers, reason: 'marked no-check' };

  const assertions: Assertion[] = [];
  // Edits as [start, end, replacement], applied from the end so offsets stay valid.
  const edits: [number, number, string][] = [];
  for (const comment of comments) {
    if (comment.type !== 'Line') continue;
    const arrow = ARROW.exec(comment.value);
    if (!arrow) continue;
    const blockLine = comment.loc?.start.line ?? 1;
    const line = at(blockLine);
    const text = arrow[1] ?? '';
    let expected: unknown;
    try {
      expected = JSON.parse(text);
    } catch {
      return invalid(
        block,
        specifiers,
        line,
        `SKILL.md line ${line}: the value after the arrow must be JSON (strings in double quotes, keys quoted), got ${text === '' ? 'nothing' : text}.`,
      );
    }
    const statement = body.find((s) => s.loc?.end.line === blockLine && s.end <= comment.start);
    const target = statement ? assertedExpression(statement) : undefined;
    if (!target) {
      return invalid(
        block,
        specifiers,
        line,
        `SKILL.md line ${line}: an asserted line must end an expression, a return or a declaration of one variable (\`const x = …; // → value\`).`,
      );
    }
    edits.push([target.start, target.end, `${CHECK_FUNCTION}(${line}, (${block.code.slice(target.start, target.end)}))`]);
    assertions.push({ line, expected, text });
  }
  // Blank the imports in place (newlines kept) and re-emit them after the body.
  for (const statement of imports) edits.push([statement.start, statement.end, block.code.slice(statement.start, statement.end).replace(/[^\n]/g, ' ')]);
  edits.sort((a, b) => b[0] - a[0]);
  let code = block.code;
  for (const [start, end, text] of edits) code = code.slice(0, start) + text + code.slice(end);
  const hoisted = imports.map((s) => block.code.slice(s.start, s.end)).join(' ');
  return { kind: 'run', block, specifiers, program: `${PRELUDE}${code}${EPILOGUE}\n${hoisted}\n`, assertions };
}

function assertedExpression(statement: AnyNode): AnyNode | undefined {
  if (statement.type === 'ExpressionStatement') return statement.expression as AnyNode;
  if (statement.type === 'ReturnStatement') return (statement.argument as AnyNode | null) ?? undefined;
  if (statement.type === 'VariableDeclaration') {
    const declarations = statement.declarations as AnyNode[];
    const only = declarations.length === 1 ? declarations[0] : undefined;
    return (only?.init as AnyNode | null | undefined) ?? undefined;
  }
  return undefined;
}

function invalid(block: CodeBlock, specifiers: readonly string[], line: number, message: string): PreparedExample {
  return { kind: 'invalid', block, specifiers, problem: { code: 'example-invalid', line, message } };
}

/** Map "line N, column C" in a sandbox message about the generated program to SKILL.md's lines. */
export function skillLineOf(message: string, block: CodeBlock): number | undefined {
  // "(line N, column C)" and "called from line N, column C)" are the node's own code; "(in <module>, line N, …" is a pack file's.
  const at = codePositionOf(message);
  if (!at) return undefined;
  const generated = at.line;
  // The epilogue and hoisted imports follow the block's last line.
  const blockLines = block.code.split('\n').length;
  if (generated < 1 || generated > blockLines) return undefined;
  return block.firstLine + generated - 1;
}

/** Deep equality of JSON values, ignoring object key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
