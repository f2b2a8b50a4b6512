// quickjs-ng records a source position only at calls, `new` and `throw`; an error raised by any
// other operation (reading a property of null, destructuring null, a name that is not defined)
// carries the position of the last call before it in the same function — often the function's
// start or an earlier line. For those errors the fault is found in the source itself: the reads of
// that property or name (or the destructurings), in the function the engine named, nearest after
// the engine's position (the fault comes after it in evaluation order, or before it inside a
// loop). Other errors keep the engine's position.

import { parse, type Node, type Options } from 'acorn';
import { ancestor, base } from 'acorn-walk';

export interface SourcePosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

/** How the source is parsed: a Code node's text (top-level return and await) or a pack's module. */
export type SourceKind = 'node-code' | 'module';

const OPTIONS: Record<SourceKind, Options> = {
  'node-code': { ecmaVersion: 'latest', sourceType: 'module', allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true },
  module: { ecmaVersion: 'latest', sourceType: 'module' },
};

const NOT_DEFINED = /^([A-Za-z_$][\w$]*) is not defined$/;
const NULL_PROPERTY = /^cannot (?:read|set) property '(.*)' of (?:null|undefined)$/;
/** Destructuring null or undefined (`const { a } = null`). */
const NULL_DESTRUCTURE = /^Cannot convert undefined or null to object$/;

type AnyNode = Node & Record<string, unknown>;
const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

interface Candidate {
  /** Offset reported for the fault (the name, or the property read). */
  readonly at: number;
  /** The innermost function around it, or null at top level. */
  readonly fn: AnyNode | null;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function toOffset(starts: readonly number[], at: SourcePosition): number {
  return (starts[at.line - 1] ?? 0) + at.column - 1;
}

function toPosition(starts: readonly number[], offset: number): SourcePosition {
  let line = 0;
  while (line + 1 < starts.length && (starts[line + 1] ?? 0) <= offset) line++;
  return { line: line + 1, column: offset - (starts[line] ?? 0) + 1 };
}

/** Whether the engine's position for this error may be imprecise, so that `refineErrorPosition` can help. */
export function isImpreciseError(name: string | undefined, message: string): boolean {
  return (name === 'ReferenceError' && NOT_DEFINED.test(message)) || (name === 'TypeError' && (NULL_PROPERTY.test(message) || NULL_DESTRUCTURE.test(message)));
}

/**
 * The position of the operation that raised `name: message` in `source`, given the engine's
 * `reported` position in that source (undefined: the engine named none, or only the top level's
 * start). Undefined when the error is not one the engine misplaces, or the source has no match.
 */
export function refineErrorPosition(
  source: string,
  kind: SourceKind,
  error: { readonly name: string | undefined; readonly message: string },
  reported: SourcePosition | undefined,
): SourcePosition | undefined {
  if (!isImpreciseError(error.name, error.message)) return undefined;
  const missing = NOT_DEFINED.exec(error.message)?.[1];
  const property = missing === undefined ? NULL_PROPERTY.exec(error.message)?.[1] : undefined;
  const destructure = NULL_DESTRUCTURE.test(error.message);
  let program: Node;
  try {
    program = parse(source, OPTIONS[kind]);
  } catch {
    return undefined;
  }
  const candidates: Candidate[] = [];
  const functions: AnyNode[] = [];
  const innermost = (ancestors: readonly Node[]): AnyNode | null => {
    for (let i = ancestors.length - 2; i >= 0; i--) if (FUNCTION_TYPES.has(ancestors[i]?.type ?? '')) return ancestors[i] as AnyNode;
    return null;
  };
  const visitFunction = (node: Node) => functions.push(node as AnyNode);
  ancestor(
    program,
    {
      FunctionDeclaration: visitFunction,
      FunctionExpression: visitFunction,
      ArrowFunctionExpression: visitFunction,
      // Only identifiers in expression position reach this visitor (acorn-walk visits declared
      // names, non-computed keys and member names under other types).
      Identifier(node, _state, ancestors) {
        if (missing !== undefined && node.name === missing) candidates.push({ at: node.start, fn: innermost(ancestors) });
      },
      ObjectPattern(node, _state, ancestors) {
        if (destructure) candidates.push({ at: node.start, fn: innermost(ancestors) });
      },
      MemberExpression(node, _state, ancestors) {
        if (property === undefined) return;
        const key = node.property;
        const matches = node.computed ? key.type !== 'Literal' || String(key.value) === property : key.type === 'Identifier' && key.name === property;
        if (matches && !node.optional) candidates.push({ at: key.start, fn: innermost(ancestors) });
      },
    },
    base,
  );
  if (candidates.length === 0) return undefined;
  const starts = lineStarts(source);
  const offset = reported ? toOffset(starts, reported) : 0;
  // The function the engine's frame is in: the innermost one whose text holds the position.
  let frame: AnyNode | null = null;
  if (reported) for (const fn of functions) if (fn.start <= offset && offset < fn.end && (!frame || fn.start >= frame.start)) frame = fn;
  const inFrame = candidates.filter((c) => c.fn === frame).sort((a, b) => a.at - b.at);
  const chosen = inFrame.find((c) => c.at >= offset) ?? inFrame.at(-1) ?? (candidates.length === 1 ? candidates[0] : undefined);
  return chosen ? toPosition(starts, chosen.at) : undefined;
}
