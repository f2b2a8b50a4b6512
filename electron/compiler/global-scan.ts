// Bundling proves resolution, not compatibility: a bundle can still reach for globals the guest
// does not have. This scan finds free references (ones no enclosing scope binds — a local named
// `process` is fine) to the names the sandbox withholds, and sorts them three ways:
//  - hard: unguarded and in code that certainly runs on import (module top level, or only
//    inside immediately-invoked functions) — an error, the module cannot initialize;
//  - feature-detected: under `typeof X` or a test of it, or inside a try block — a warning;
//  - deferred: unguarded inside a function the import does not call by itself — a warning
//    naming the code path that will throw if a caller reaches it.
// Warnings are heads-ups, not guarantees: whether initialization really works is decided by the
// admission probe.

import { parse, type Node } from 'acorn';
import { analyze } from 'eslint-scope';

/** Globals the guest does not provide, with why, for the message. */
export const FORBIDDEN_GLOBALS: Readonly<Record<string, string>> = {
  process: 'Node',
  Buffer: 'Node',
  require: 'CommonJS',
  module: 'CommonJS',
  exports: 'CommonJS',
  __dirname: 'Node',
  __filename: 'Node',
  global: 'Node',
  setImmediate: 'Node timers',
  clearImmediate: 'Node timers',
  eval: 'code generation',
  Function: 'code generation',
  setTimeout: 'timers',
  setInterval: 'timers',
  clearTimeout: 'timers',
  clearInterval: 'timers',
  WebAssembly: 'WebAssembly',
  document: 'DOM',
  window: 'DOM',
  navigator: 'DOM',
  location: 'DOM',
  XMLHttpRequest: 'DOM',
  Worker: 'DOM',
  importScripts: 'DOM',
  localStorage: 'DOM',
  Intl: 'internationalisation',
};

/** Names that generate code at run time; their messages say so instead of "a global the sandbox lacks". */
export const CODE_GENERATION: ReadonlySet<string> = new Set(['eval', 'Function']);

/** The exact body of the global-object idiom. */
const GLOBAL_THIS_BODY = 'return this';

export interface GlobalHit {
  readonly name: string;
  readonly line: number;
  readonly column: number;
  readonly kind: 'hard' | 'guarded' | 'deferred';
}

export type ScanResult = { readonly ok: true; readonly hits: readonly GlobalHit[] } | { readonly ok: false; readonly message: string };

type AnyNode = Node & Record<string, unknown>;

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function buildParents(root: AnyNode): Map<AnyNode, AnyNode> {
  const parents = new Map<AnyNode, AnyNode>();
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    for (const key of Object.keys(node)) {
      if (key === 'loc') continue;
      const value = node[key];
      if (Array.isArray(value)) {
        for (const item of value) {
          if (isNode(item)) {
            parents.set(item, node);
            stack.push(item);
          }
        }
      } else if (isNode(value)) {
        parents.set(value, node);
        stack.push(value);
      }
    }
  }
  return parents;
}

/** Does `test` contain `typeof <name>`? */
function testsTypeof(test: unknown, name: string): boolean {
  const stack: unknown[] = [test];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isNode(node)) continue;
    if (node.type === 'UnaryExpression' && node.operator === 'typeof') {
      const arg = node.argument as AnyNode;
      if (arg.type === 'Identifier' && arg.name === name) return true;
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) stack.push(...value);
      else if (isNode(value)) stack.push(value);
    }
  }
  return false;
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Is the reference inside a function that is not immediately invoked (so import alone may not run it)? */
function isDeferred(id: AnyNode, parents: Map<AnyNode, AnyNode>): boolean {
  let child: AnyNode = id;
  let parent = parents.get(id);
  while (parent) {
    if (FUNCTION_TYPES.has(child.type) || child.type === 'MethodDefinition' || child.type === 'PropertyDefinition' || child.type === 'StaticBlock') {
      if (child.type === 'StaticBlock') {
        // class static blocks run when the class is defined
      } else {
        const invoked = (parent.type === 'CallExpression' || parent.type === 'NewExpression') && parent.callee === child;
        if (!invoked) return true;
      }
    }
    child = parent;
    parent = parents.get(parent);
  }
  return false;
}

function isGuarded(id: AnyNode, name: string, parents: Map<AnyNode, AnyNode>): boolean {
  let child: AnyNode = id;
  let parent = parents.get(id);
  if (parent && parent.type === 'UnaryExpression' && parent.operator === 'typeof') return true;
  while (parent) {
    switch (parent.type) {
      case 'IfStatement':
      case 'ConditionalExpression':
        if (child !== parent.test && testsTypeof(parent.test, name)) return true;
        break;
      case 'LogicalExpression':
        if (child === parent.right && testsTypeof(parent.left, name)) return true;
        break;
      case 'TryStatement':
        if (child === parent.block) return true;
        break;
      default:
        break;
    }
    child = parent;
    parent = parents.get(parent);
  }
  return false;
}

function literalText(node: AnyNode | undefined): string | undefined {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    const quasi = (node.quasis as AnyNode[])[0] as { value?: { cooked?: unknown } } | undefined;
    return typeof quasi?.value?.cooked === 'string' ? quasi.value.cooked : undefined;
  }
  return undefined;
}

/**
 * A use of `Function` that compiles nothing: `Function.prototype`, `x instanceof Function`, and
 * `Function("return this")` / `new Function("return this")`, which asks only for the global object.
 * `Function` exists in the guest (a constructor that refuses to compile), so only uses that could
 * generate code are hits. The `"return this"` body (exactly that literal) is the idiom lodash,
 * core-js and many UMD builds use to find the global object: it asks for no code, the guest
 * prelude answers that one body with globalThis and refuses every other, so the idiom is left to
 * the probe. Any other call, construction or handing-on of Function is a hit.
 */
function compilesNothing(id: AnyNode, parents: Map<AnyNode, AnyNode>): boolean {
  const parent = parents.get(id);
  if (!parent) return false;
  if (parent.type === 'MemberExpression' && parent.object === id && !parent.computed) return (parent.property as AnyNode).name === 'prototype';
  if (parent.type === 'BinaryExpression' && parent.operator === 'instanceof' && parent.right === id) return true;
  if ((parent.type !== 'CallExpression' && parent.type !== 'NewExpression') || parent.callee !== id) return false;
  const args = parent.arguments as AnyNode[];
  return args.length === 1 && literalText(args[0]) === GLOBAL_THIS_BODY;
}

/**
 * Scan a bundled ES module for free references to forbidden globals. Deferred hits are such as
 * diff's setTimeout for its async callback form and fflate's Worker for its async API. The
 * admission probe also catches init-time uses this static view cannot place (for example inside
 * esbuild's lazy CommonJS wrappers). `require` is judged here like any other name (esbuild's
 * `__require` shim and UMD wrappers only test it with typeof); a call at import time is hard.
 */
export function scanForbiddenGlobals(source: string): ScanResult {
  let ast: AnyNode;
  try {
    ast = parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true, ranges: true }) as unknown as AnyNode;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const scopes = analyze(ast, { ecmaVersion: 2022, sourceType: 'module', fallback: 'iteration' });
  const parents = buildParents(ast);
  const hits: GlobalHit[] = [];
  for (const ref of scopes.globalScope.through) {
    const name = ref.identifier.name;
    if (!Object.hasOwn(FORBIDDEN_GLOBALS, name)) continue;
    const id = ref.identifier as unknown as AnyNode;
    if (name === 'Function' && compilesNothing(id, parents)) continue;
    const loc = ref.identifier.loc?.start;
    const kind = isGuarded(id, name, parents) ? 'guarded' : isDeferred(id, parents) ? 'deferred' : 'hard';
    hits.push({ name, line: loc?.line ?? 0, column: (loc?.column ?? 0) + 1, kind });
  }
  return { ok: true, hits };
}
