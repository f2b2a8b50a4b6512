// Absolute paths of the data directory must not cross to the renderer (spec: the general
// surface never hands out raw absolute paths). The catalog and installer already avoid them, but
// messages built from errno errors can carry one; this is the last line before the contract
// boundary: every string in what a pack/catalog method answers has the data dir replaced.

const LABEL = '<data dir>';

export function createRedactor(paths: readonly string[]): <T>(value: T) => T {
  const needles = [...new Set(paths.filter((p) => p.length > 1))].sort((a, b) => b.length - a.length);
  const redactText = (text: string): string => needles.reduce((acc, needle) => acc.split(needle).join(LABEL), text);
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redactText(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
    }
    return value;
  };
  return <T>(value: T): T => walk(value) as T;
}
