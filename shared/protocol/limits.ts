// The spec's limits table in one place. Every check that enforces a bound reads it from here,
// so the number a user is told and the number that is enforced can never disagree.

export const LIMITS = {
  /** Authored JS module source, per file (bytes). */
  authoredJsBytes: 256 * 1024,
  /** npm-bundled module, minified output (bytes). */
  bundledJsBytes: 1024 * 1024,
  /** One WASM binary (bytes). */
  wasmBytes: 4 * 1024 * 1024,
  /** Everything a pack ships that discovery reads (bytes). */
  packBytes: 8 * 1024 * 1024,
  /** SKILL.md (bytes); over this is a warning, never a disabled module. */
  skillBytes: 16 * 1024,
  /** WASM memory: host ceiling in 64 KiB pages (256 MB). */
  wasmMemoryPagesCeiling: 4096,
  /** WASM export arity. */
  wasmMaxParams: 8,
  /** WASM export results. */
  wasmMaxResults: 1,
  /** Guest heap per invocation (bytes). */
  guestMemoryBytes: 64 * 1024 * 1024,
  /** Guest stack per invocation (bytes). */
  guestStackBytes: 512 * 1024,
  /** Default invocation deadline (ms); callers may lower it. */
  guestTimeoutMs: 30_000,
  /** WASM per-call wall clock (ms); a pack may lower it. */
  wasmCallTimeoutMs: 5_000,
  /** Process-wide WASM worker pool size. */
  wasmPoolSize: 4,
  /** Per-invocation WASM call concurrency. */
  wasmConcurrency: 2,
  /** Per-invocation WASM call count. */
  wasmCallsPerInvocation: 256,
  /** Per-invocation aggregate WASM wall clock (ms). */
  wasmAggregateMs: 30_000,
  /** Bytes one WASM call may pass in: its bytes arguments and its strings' UTF-8, summed. */
  wasmCallInputBytes: 16 * 1024 * 1024,
  /** Bytes one WASM call may return (a bytes result, or a string result's UTF-8). */
  wasmCallOutputBytes: 16 * 1024 * 1024,
  /** Bytes all of one invocation's WASM calls may pass in. */
  wasmInputBytesPerInvocation: 64 * 1024 * 1024,
  /** Bytes all of one invocation's WASM calls may return. */
  wasmOutputBytesPerInvocation: 64 * 1024 * 1024,
  /** Captured console output per invocation (bytes). */
  consoleBytes: 64 * 1024,
  /** Captured console entries per invocation: empty lines cost no bytes but still cost memory and output. */
  consoleEntries: 1000,
  /**
   * Nesting of a JSON value passed into or out of the sandbox (inputs, results). Deeper values
   * exhaust a thread's stack in a recursive parser or in structured clone (measured: zod fails
   * from ~1,500 levels, a worker message from ~4,000), so they are refused first, iteratively.
   */
  jsonDepth: 256,
  /**
   * One copy between a node and a module it imports isolated (a call's arguments, its result, an
   * export copied at import): characters of its strings and keys, bytes of its Uint8Arrays, and 8
   * per object. Over it the copy is refused with the path where it ran out (kernel/isolation.ts).
   */
  isolationCopyBytes: 16 * 1024 * 1024,
  /** fetch requests one invocation may have in flight (each may buffer a response of up to 8 MB). */
  fetchConcurrency: 6,
  /** One-line disclosure tier: description length (characters). */
  disclosureChars: 120,
  /** Module `name` segment length (characters). */
  moduleNameChars: 64,
  /** Modules one pack may declare. */
  modulesPerPack: 64,
  /** Internal helper files one pack may list. */
  internalPerPack: 256,

  // --- what one catalog answer row may hold (shared/contract/schemas.ts; discovery holds packs to it) ---
  /**
   * Names one module's summary may list as its exports. Popular libraries export far more than a
   * few hundred (zod 260, ramda 272, valibot 320, lodash-es 322, mathjs 1,138: the compatibility
   * corpus, docs/compatibility.md); at 256 each was skipped though the engine runs it. 2,048 names
   * of at most 128 characters still bound one row (and its completions in the editor).
   */
  exportsPerModule: 2048,
  /** One exported name (characters). */
  exportNameChars: 128,
  /** A module's or a pack's reason, and a warning's message (characters); longer texts are shown shortened. */
  reasonChars: 2000,
  /** Warnings one pack's diagnostics row may list; the rest are counted in the last one. */
  warningsPerPack: 256,
  /** The disclosure line as a whole (characters): specifier, kind, export names and description. */
  disclosureLineChars: 480,
  /** An import specifier (characters): a package name (214) and one module name segment, with room. */
  specifierChars: 300,
  /** A package version (characters), as npm's registry allows it. */
  versionChars: 256,
  /** SKILL.md frontmatter `name` (characters). */
  skillNameChars: 64,
  /** SKILL.md frontmatter `description` (characters). */
  skillDescriptionChars: 1024,
} as const;

export type Limits = typeof LIMITS;

/** Human form of a byte count, for messages ("256 KB", "4 MB"). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/**
 * `text` cut to at most `max` characters, ending in "..." when it was cut (never between the two
 * halves of a surrogate pair), for a text an answer shows shortened rather than not at all.
 */
export function shortenText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 3);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}...`;
}
