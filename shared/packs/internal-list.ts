// The pack-level `internal` list: helper files public entries may import by relative path but a
// node may never declare. Its rules are pack-level (a bad list rejects the pack), because a helper
// that is silently dropped would turn into confusing failures in every entry that shares it.

import { fail, ok, type Result } from '../protocol/result.ts';
import { normalizePackPath, printable } from './pack-path.ts';

/** Canonical ids (normalized pack-relative paths) of the internal files, in list order. */
export function normalizeInternalList(list: readonly string[]): Result<readonly string[], 'internal-invalid' | 'internal-duplicate'> {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const raw of list) {
    const normalized = normalizePackPath(raw);
    if (!normalized.ok) return fail('internal-invalid', `internal entry "${printable(raw)}": ${normalized.message}.`);
    if (!normalized.value.endsWith('.js')) {
      return fail('internal-invalid', `internal entry "${printable(raw)}" is not a .js file; internal helpers are JavaScript modules.`);
    }
    const key = normalized.value.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      return fail('internal-duplicate', `internal entries "${printable(earlier)}" and "${printable(raw)}" name the same file "${normalized.value}".`);
    }
    seen.set(key, raw);
    out.push(normalized.value);
  }
  return ok(out);
}

/**
 * Find a group of nodes that import each other in a cycle and that includes at least one node for
 * which `counts` holds (strongly connected components, Tarjan). Cycles among public entries alone
 * are legal ESM and are not reported. Returns the group's members in sorted order, or undefined.
 */
export function findCycle(
  nodes: Iterable<string>,
  edges: (node: string) => Iterable<string>,
  counts: (node: string) => boolean,
): readonly string[] | undefined {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  let found: string[] | undefined;

  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    let selfLoop = false;
    for (const next of edges(node)) {
      if (next === node) selfLoop = true;
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const cyclic = component.length > 1 || selfLoop;
      if (!found && cyclic && component.some(counts)) found = component.sort();
    }
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return found;
}
