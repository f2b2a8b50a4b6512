// Bundling proves resolution, not compatibility: a bundle can still reach for globals the guest
// does not have. This scan finds free references (ones no enclosing scope binds — a local named
// `process` is fine) to the names the sandbox withholds, and sorts them three ways:
//  - hard: unguarded and in code that certainly runs on import (module top level, or only
//    inside immediately-invoked functions) — an error, the module cannot initialize;
//  - feature-detected: under `typeof X` or a test of it, or inside a try block — a warning;
//  - deferred: unguarded inside a function the import does not call by itself (diff's
//    setTimeout for its async callback form, fflate's Worker for its async API) — a warning
//    naming the code path that will throw if a caller reaches it.
// Warnings are heads-ups, not guarantees. Whether initialization really works is decided by the
// admission probe, which also catches init-time uses this static view cannot place (for example
// inside esbuild's lazy CommonJS wrappers).

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
};

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

/** Scan a bundled ES module for free references to forbidden globals. */
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
    const loc = ref.identifier.loc?.start;
    const kind = isGuarded(id, name, parents) ? 'guarded' : isDeferred(id, parents) ? 'deferred' : 'hard';
    hits.push({ name, line: loc?.line ?? 0, column: (loc?.column ?? 0) + 1, kind });
  }
  return { ok: true, hits };
}
