// The pack manifest: the `nodetool` field of a pack's package.json, kept compatible with
// NodeTool packs. It is untrusted input, so it is parsed from `unknown` with these schemas and
// nothing downstream ever looks at the raw JSON. Unknown keys inside `nodetool` are kept (NodeTool
// packs carry node registrations there); unknown keys inside a sandbox module entry are refused,
// so a typo such as "fiel" fails loudly instead of being ignored.

import { z } from 'zod';
import { LIMITS } from './limits.ts';

export const WASM_VALUE_TYPES = ['i32', 'f32', 'f64'] as const;
export type WasmScalarType = (typeof WASM_VALUE_TYPES)[number];

/** Budgets a WASM entry may lower (never raise) from the host defaults. */
export const WasmBudgetsSchema = z
  .object({
    callTimeoutMs: z.number().int().min(1).max(LIMITS.wasmCallTimeoutMs).optional(),
    concurrency: z.number().int().min(1).max(LIMITS.wasmConcurrency).optional(),
    calls: z.number().int().min(1).max(LIMITS.wasmCallsPerInvocation).optional(),
    aggregateMs: z.number().int().min(1).max(LIMITS.wasmAggregateMs).optional(),
  })
  .strict();
export type WasmBudgets = z.infer<typeof WasmBudgetsSchema>;

export const WasmExportSchema = z.union([z.string().min(1).max(128), z.object({ wasm: z.string().min(1).max(128), as: z.string().min(1).max(128) }).strict()]);
export type WasmExportDeclaration = z.infer<typeof WasmExportSchema>;

export const JsModuleEntrySchema = z
  .object({
    name: z.string().max(256),
    kind: z.literal('js'),
    file: z.string().min(1).max(1024).optional(),
    npm: z.string().min(1).max(214).optional(),
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
