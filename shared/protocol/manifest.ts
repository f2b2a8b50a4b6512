// The pack manifest: the `nodetool` field of a pack's package.json, kept compatible with
// NodeTool packs. It is untrusted input, so it is parsed from `unknown` with these schemas and
// nothing downstream ever looks at the raw JSON. Unknown keys inside `nodetool` are kept (NodeTool
// packs carry node registrations there); unknown keys inside a sandbox module entry are refused,
// so a typo such as "fiel" fails loudly instead of being ignored.

import { z } from 'zod';
import { LIMITS } from './limits.ts';

export const WASM_VALUE_TYPES = ['i32', 'f32', 'f64'] as const;
export type WasmScalarType = (typeof WASM_VALUE_TYPES)[number];
/**
 * The types a typed export declaration may name (docs/wasm-host.md, "Bytes and strings"): the
 * scalars, and `bytes` (a Uint8Array in the guest) and `string` (UTF-8 on the wire), which the
 * canonical ABI lowers to a (ptr, len) pair of i32s.
 */
export const WASM_TYPES = ['i32', 'f32', 'f64', 'bytes', 'string'] as const;
export type WasmValueType = (typeof WASM_TYPES)[number];
/** The types the canonical ABI lowers to a (ptr, len) pair, and returns through a return area. */
export const isByteType = (t: string): t is 'bytes' | 'string' => t === 'bytes' || t === 'string';

/** Budgets a WASM entry may lower (never raise) from the host defaults. */
export const WasmBudgetsSchema = z
  .object({
    callTimeoutMs: z.number().int().min(1).max(LIMITS.wasmCallTimeoutMs).optional(),
    concurrency: z.number().int().min(1).max(LIMITS.wasmConcurrency).optional(),
    calls: z.number().int().min(1).max(LIMITS.wasmCallsPerInvocation).optional(),
    aggregateMs: z.number().int().min(1).max(LIMITS.wasmAggregateMs).optional(),
    /** Bytes one call may pass in (its bytes and strings' UTF-8, summed) / return. */
    callInputBytes: z.number().int().min(1).max(LIMITS.wasmCallInputBytes).optional(),
    callOutputBytes: z.number().int().min(1).max(LIMITS.wasmCallOutputBytes).optional(),
    /** Bytes all of a run's calls may pass in / return. */
    inputBytes: z.number().int().min(1).max(LIMITS.wasmInputBytesPerInvocation).optional(),
    outputBytes: z.number().int().min(1).max(LIMITS.wasmOutputBytesPerInvocation).optional(),
  })
  .strict();
export type WasmBudgets = z.infer<typeof WasmBudgetsSchema>;

/**
 * An export: its name, `{ wasm, as }`, or the typed form `{ wasm, as, params, result }`. The
 * types are plain strings here, bounded in number and length, so that a wrong one skips this
 * module with a sentence naming it (binary validation judges them) instead of failing the whole
 * manifest.
 */
export const WasmExportSchema = z.union([
  z.string().min(1).max(128),
  z
    .object({
      wasm: z.string().min(1).max(128),
      as: z.string().min(1).max(128),
      params: z.array(z.string().max(32)).max(32).optional(),
      result: z.string().max(32).optional(),
    })
    .strict(),
]);
export type WasmExportDeclaration = z.infer<typeof WasmExportSchema>;

/** Longest `npm` field: a package name (npm allows 214 characters), "/", a subpath. */
export const NPM_SUBPATH_MAX = 256;
export const NPM_FIELD_MAX = 214 + 1 + NPM_SUBPATH_MAX;

export const JsModuleEntrySchema = z
  .object({
    name: z.string().max(256),
    kind: z.literal('js'),
    file: z.string().min(1).max(1024).optional(),
    // A package name (≤ 214) and an optional subpath (≤ 256); parseNpmField judges the text, so a
    // bad value skips this one module with a reason instead of rejecting the whole manifest.
    npm: z.string().min(1).max(NPM_FIELD_MAX).optional(),
    description: z.string().max(1000).optional(),
  })
  .strict()
  .refine((entry) => (entry.file === undefined) !== (entry.npm === undefined), {
    message: 'a js module declares exactly one of "file" or "npm"',
  });

export const WasmModuleEntrySchema = z
  .object({
    name: z.string().max(256),
    kind: z.literal('wasm'),
    file: z.string().min(1).max(1024),
    memoryPagesMax: z.number().int().min(0).max(LIMITS.wasmMemoryPagesCeiling),
    exports: z.array(WasmExportSchema).min(1).max(64),
    budgets: WasmBudgetsSchema.optional(),
    description: z.string().max(1000).optional(),
  })
  .strict();

export const SandboxModuleEntrySchema = z.discriminatedUnion('kind', [JsModuleEntrySchema, WasmModuleEntrySchema]);
export type JsModuleEntry = z.infer<typeof JsModuleEntrySchema>;
export type WasmModuleEntry = z.infer<typeof WasmModuleEntrySchema>;
export type SandboxModuleEntry = z.infer<typeof SandboxModuleEntrySchema>;

export const NodetoolManifestSchema = z.looseObject({
  apiVersion: z.literal(1, { message: 'nodetool.apiVersion must be 1' }),
  sandboxModules: z.array(SandboxModuleEntrySchema).max(LIMITS.modulesPerPack).optional(),
  internal: z.array(z.string().min(1).max(1024)).max(LIMITS.internalPerPack).optional(),
  register: z.string().min(1).max(1024).optional(),
});
export type NodetoolManifest = z.infer<typeof NodetoolManifestSchema>;

/** npm's own name rule (lower case, optional scope, url-safe), so a name can never carry a path. */
export const PackageNameSchema = z
  .string()
  .max(214)
  .regex(/^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/, 'not a valid npm package name');

/** What a module's `npm` field names: a package, and optionally a subpath of it ("./browser/esm/sync"). */
export interface NpmTarget {
  readonly packageName: string;
  /** `./`-prefixed, as a package's `exports` keys are written; absent for the package's own entry. */
  readonly subpath?: string;
}

// One subpath segment: plain characters only. No percent sign (an encoded "..", slash or
// backslash must never reach a resolver that decodes it), no backslash, no colon, and no "*"
// (an exports pattern is not a module).
const SUBPATH_SEGMENT = /^[A-Za-z0-9._~+@-]+$/;

/**
 * Splits and checks a module's `npm` field: `<package>` or `<package>/<subpath>`. The package part
 * follows npm's name rule; the subpath is one or more plain segments, never ".", "..", empty,
 * percent-encoded or `node_modules` (Node refuses the same in `exports` targets). Whether the
 * package is a dependency and exports the subpath is the compiler's question.
 */
export function parseNpmField(value: string): { readonly ok: true; readonly value: NpmTarget } | { readonly ok: false; readonly message: string } {
  const notAName = { ok: false as const, message: `"${value}" is not an npm package name; the "npm" field must name a dependency, not a path.` };
  const parts = value.split('/');
  const nameParts = value.startsWith('@') ? 2 : 1;
  const packageName = parts.slice(0, nameParts).join('/');
  if (parts.length < nameParts || !PackageNameSchema.safeParse(packageName).success) return notAName;
  const rest = parts.slice(nameParts);
  if (rest.length === 0) return { ok: true, value: { packageName } };
  const subpath = rest.join('/');
  const plain = rest.every((seg) => SUBPATH_SEGMENT.test(seg) && seg !== '.' && seg !== '..' && seg.toLowerCase() !== 'node_modules');
  if (!plain || subpath.length > NPM_SUBPATH_MAX) {
    return {
      ok: false,
      message: `"${value}": "${subpath}" is not a plain subpath of ${packageName}; use segments of letters, digits and . _ ~ + @ - (no ".", ".." or empty segment, no "%", no node_modules), at most ${NPM_SUBPATH_MAX} characters in all.`,
    };
  }
  return { ok: true, value: { packageName, subpath: `./${subpath}` } };
}

export const PackageVersionSchema = z.string().min(1).max(256);

/** The parts of a package.json we read. Everything else in the file is ignored. */
export const PackageJsonSchema = z.looseObject({
  name: PackageNameSchema,
  version: PackageVersionSchema,
  description: z.string().max(10_000).optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  scripts: z.record(z.string(), z.string()).optional(),
  nodetool: z.unknown().optional(),
});
export type PackageJson = z.infer<typeof PackageJsonSchema>;

/** npm lifecycle scripts that `npm install` would run for a package. */
export const INSTALL_LIFECYCLE_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'] as const;
