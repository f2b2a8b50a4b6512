// The module-graph digest: one sha256 over a canonical, sorted list of every transitive source of
// a module, each with its normalized module id and kind, plus what produced generated text (the
// WASM facade generator version, the npm compiler id and options). The workflow declaration,
// delivery, caches and validation all compare this one value, so it must be computed by one
// function everywhere: here. The bytes are built in shared/ and the hash is injected, so Node can
// use node:crypto and a browser crypto.subtle.

export type GraphSourceKind = 'js' | 'internal' | 'npm-bundle' | 'wasm-facade' | 'wasm-binary' | 'wasm-bridge';

export interface GraphSource {
  /** Normalized module id, e.g. `@acme/geo@1.2.0:entry:extra` or `@acme/geo@1.2.0:file:sandbox/util.js`. */
  readonly id: string;
  readonly kind: GraphSourceKind;
  /** Source text (hashed as UTF-8) or bytes. */
  readonly content: string | Uint8Array;
  /** What produced the content, when generated: generator version, compiler id and options. */
  readonly producer?: Readonly<Record<string, string>>;
}

export const GRAPH_DIGEST_FORMAT = 'sandbox-packs-graph-digest/1';

/**
 * Every graph source of `root` and the modules it reaches, each once: the input of a module's
 * graph digest wherever it is recomputed (delivery verification in the browser, test fixtures).
 */
export function graphClosure(root: string, ownSources: (id: string) => readonly GraphSource[], dependencies: (id: string) => readonly string[]): GraphSource[] {
  const out = new Map<string, GraphSource>();
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const s of ownSources(id)) out.set(s.id, s);
    stack.push(...dependencies(id));
  }
  return [...out.values()];
}

export type Sha256Hex = (bytes: Uint8Array) => string;
export type Sha256HexAsync = (bytes: Uint8Array) => Promise<string>;

/** Thrown when two sources of one graph claim the same id: a bug in whoever collected them. */
export class DuplicateGraphSourceError extends Error {
  override readonly name = 'DuplicateGraphSourceError';
}

const encoder = new TextEncoder();

/**
 * The canonical bytes of a graph. Sources are sorted by id (code-unit order), and every field is
 * length-prefixed, so no two different graphs can produce the same byte string.
 */
export function canonicalGraphBytes(sources: readonly GraphSource[]): Uint8Array {
  const sorted = [...sources].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const parts: Uint8Array[] = [field(GRAPH_DIGEST_FORMAT), field(String(sorted.length))];
  for (let i = 0; i < sorted.length; i++) {
    const source = sorted[i] as GraphSource;
    if (i > 0 && sorted[i - 1]?.id === source.id) throw new DuplicateGraphSourceError(`graph source id ${source.id} appears twice`);
    parts.push(field(source.id), field(source.kind));
    const producer = Object.entries(source.producer ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    parts.push(field(String(producer.length)));
    for (const [key, value] of producer) parts.push(field(key), field(value));
    parts.push(field(typeof source.content === 'string' ? encoder.encode(source.content) : source.content));
  }
  let total = 0;
  for (const part of parts) total += part.byteLength;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** The module-graph digest (sha256 hex) with a synchronous hash (Node). */
export function moduleGraphDigest(sources: readonly GraphSource[], sha256: Sha256Hex): string {
  return sha256(canonicalGraphBytes(sources));
}

/** The same digest with an asynchronous hash (browser `crypto.subtle`). */
export async function moduleGraphDigestAsync(sources: readonly GraphSource[], sha256: Sha256HexAsync): Promise<string> {
  return sha256(canonicalGraphBytes(sources));
}

// `<decimal byte length>:<bytes>\n`
function field(value: string | Uint8Array): Uint8Array {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  const prefix = encoder.encode(`${bytes.byteLength}:`);
  const out = new Uint8Array(prefix.byteLength + bytes.byteLength + 1);
  out.set(prefix, 0);
  out.set(bytes, prefix.byteLength);
  out[out.byteLength - 1] = 10;
  return out;
}
