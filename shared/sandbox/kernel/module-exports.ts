// The names a sandbox module exports, read from the ESM source the guest would evaluate (a JS
// module's own source, a WASM module's generated facade), so validation can refuse
// `import { nope } from "pack"` before the run instead of the guest's SyntaxError naming a hashed
// module id. Unknown (undefined) when the module re-exports another with `export *` or exports a
// destructuring pattern: then no name is refused.

import { parse, type Node } from 'acorn';

type AnyNode = Node & Record<string, unknown>;

function nameOf(node: AnyNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'Identifier') return String(node.name);
  if (node.type === 'Literal') return String(node.value);
  return undefined;
}

// Validation runs on every keystroke in the editor; a module's source only changes with its digest.
const CACHE_SIZE = 128;
const cache = new Map<string, readonly string[] | undefined>();

export function exportedNames(source: string, cacheKey?: string): readonly string[] | undefined {
  if (cacheKey !== undefined && cache.has(cacheKey)) return cache.get(cacheKey);
  const names = readExports(source);
  if (cacheKey !== undefined) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(cacheKey, names);
  }
  return names;
}

function readExports(source: string): readonly string[] | undefined {
  let body: AnyNode[];
  try {
    body = parse(source, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true }).body as AnyNode[];
  } catch {
    return undefined;
  }
  const names = new Set<string>();
  for (const statement of body) {
    if (statement.type === 'ExportDefaultDeclaration') names.add('default');
    else if (statement.type === 'ExportAllDeclaration') {
      const alias = nameOf(statement.exported as AnyNode | undefined);
      if (alias === undefined) return undefined;
      names.add(alias);
    } else if (statement.type === 'ExportNamedDeclaration') {
      const declaration = statement.declaration as AnyNode | null;
      if (declaration) {
        if (declaration.type === 'VariableDeclaration') {
          for (const declarator of declaration.declarations as AnyNode[]) {
            const id = declarator.id as AnyNode;
            if (id.type !== 'Identifier') return undefined;
            names.add(String(id.name));
          }
        } else {
          const id = nameOf(declaration.id as AnyNode | undefined);
          if (id !== undefined) names.add(id);
        }
      }
      for (const specifier of (statement.specifiers as AnyNode[] | undefined) ?? []) {
        const exported = nameOf(specifier.exported as AnyNode);
        if (exported !== undefined) names.add(exported);
      }
    }
  }
  return [...names].sort();
}
