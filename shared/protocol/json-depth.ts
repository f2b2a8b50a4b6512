// How deeply a value nests, measured without recursion. Values that cross into or out of the
// sandbox (inputs, results) are parsed, cloned and serialized by recursive code — zod, structured
// clone, JSON — that runs out of the thread's stack a few thousand levels down (a RangeError on
// the main thread, a worker message that never arrives). So the depth is checked first, with a
// loop, and a too-deep value is refused with a sentence instead.

const isNode = (value: unknown): value is object =>
  value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer);

/**
 * True when `value` nests arrays or objects more than `max` levels deep (`[]` and `{}` are one
 * level; scalars none). Typed arrays and ArrayBuffers count as leaves. Safe on cycles (they are
 * infinitely deep) and on shared references, which structured clone (IPC) can deliver: a node is
 * walked again only when reached deeper than before, so the work stays bounded.
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (!isNode(value)) return false;
  const deepest = new Map<object, number>();
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth > max) return true;
    const seen = deepest.get(node);
    if (seen !== undefined && seen >= depth) continue;
    deepest.set(node, depth);
    const children: readonly unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (isNode(child)) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * The same question for JSON text, answered by scanning it (a third of the cost of parsing it,
 * measured, and no allocation): true when its arrays and objects nest more than `max` deep.
 * The text must be valid JSON; brackets inside strings do not count.
 */
export function jsonTextDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
