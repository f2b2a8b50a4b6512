// What a sandbox run is asked and what it answers, for every face (CLI, IPC, HTTP, the worker
// message port). The kernel's request carries only what the guest side needs: sources, import
// maps and which capabilities are granted — never host paths or secret values, which stay with
// the capability handlers on the host side.

import { z } from 'zod';
import { ErrorCodeSchema, type ErrorCode } from './codes.ts';
import { LIMITS } from './limits.ts';

/** One module as the guest-side kernel sees it (the catalog's ExecutableModule minus WASM bytes). */
export const GuestModuleSchema = z
  .object({
    moduleId: z.string().min(1),
    kind: z.enum(['js', 'wasm']),
    packName: z.string(),
    packVersion: z.string(),
    displayName: z.string(),
    source: z.string(),
    imports: z.record(z.string(), z.string()),
    digest: z.string(),
  })
  .strict();
export type GuestModule = z.infer<typeof GuestModuleSchema>;

/** Which capabilities the guest may call. Their host-side parameters live with the handlers. */
export const CapabilityGrantsSchema = z
  .object({
    fetch: z.boolean(),
    workspace: z.boolean(),
    secrets: z.array(z.string().min(1).max(256)).max(64),
  })
  .strict();
export type CapabilityGrants = z.infer<typeof CapabilityGrantsSchema>;

export const NO_GRANTS: CapabilityGrants = { fetch: false, workspace: false, secrets: [] };

export const IDENTIFIER_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export const KernelRunRequestSchema = z
  .object({
    code: z.string().max(LIMITS.bundledJsBytes),
    entries: z.record(z.string(), z.string()),
    modules: z.record(z.string(), GuestModuleSchema),
    /** Values bound as globals before the code runs; names are identifiers. */
    inputs: z.record(z.string().regex(IDENTIFIER_PATTERN, 'an input name must be a JavaScript identifier'), z.unknown()),
    grants: CapabilityGrantsSchema,
    timeoutMs: z.number().int().min(1).max(LIMITS.guestTimeoutMs),
    /**
     * Who asked for the run (a face and its session, see CallContext.caller). State a caller's
     * runs leave warm for its next runs (module sets evaluated into images, shared/sandbox/supply/module-image.ts) is
     * kept for that caller and used only by its runs, so a run's cost never tells what another
     * caller imported. Absent: one caller, the host's own.
     */
    partition: z.string().min(1).max(128).optional(),
    /**
     * Declared specifiers (keys of `entries`) whose module runs isolated: in a context of its own,
     * reached only through data-only copies (shared/sandbox/kernel/isolation.ts).
     */
    isolated: z.array(z.string().min(1).max(LIMITS.specifierChars)).max(64).optional(),
  })
  .strict();
export type KernelRunRequest = z.infer<typeof KernelRunRequestSchema>;

/** Whether a run needs a sandbox whose prelude carries the WASM bridge (it has WASM modules). */
export function runNeedsWasm(request: KernelRunRequest): boolean {
  return Object.values(request.modules).some((m) => m.kind === 'wasm');
}

export const ReceiptModuleSchema = z.object({ moduleId: z.string(), displayName: z.string(), digest: z.string() }).strict();
export const ReceiptCallSchema = z
  .object({ kind: z.enum(['capability', 'wasm']), name: z.string(), ok: z.boolean(), code: ErrorCodeSchema.optional() })
  .strict();
export const ReceiptDenialSchema = z
  .object({ kind: z.enum(['import', 'capability']), request: z.string(), from: z.string(), code: ErrorCodeSchema, reason: z.string() })
  .strict();

/** A module the run imported isolated, and how often the node called each of its exports. */
export const ReceiptIsolatedSchema = z
  .object({
    specifier: z.string(),
    displayName: z.string(),
    calls: z.array(z.object({ export: z.string(), count: z.number().int().min(1) }).strict()),
  })
  .strict();
export type ReceiptIsolated = z.infer<typeof ReceiptIsolatedSchema>;

export const RunReceiptSchema = z
  .object({
    wallMs: z.number(),
    modules: z.array(ReceiptModuleSchema),
    calls: z.array(ReceiptCallSchema),
    denied: z.array(ReceiptDenialSchema),
    /** Present when the run imported a module isolated (its capability calls, if any, are denials). */
    isolated: z.array(ReceiptIsolatedSchema).optional(),
  })
  .strict();
export type RunReceipt = z.infer<typeof RunReceiptSchema>;
export type ReceiptDenial = z.infer<typeof ReceiptDenialSchema>;
export type ReceiptCall = z.infer<typeof ReceiptCallSchema>;

export const RunLogSchema = z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), text: z.string() }).strict();
export type RunLog = z.infer<typeof RunLogSchema>;

export const RunResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown(), logs: z.array(RunLogSchema), receipt: RunReceiptSchema }).strict(),
  z.object({ ok: z.literal(false), code: ErrorCodeSchema, message: z.string(), logs: z.array(RunLogSchema), receipt: RunReceiptSchema }).strict(),
]);
export type RunResult = z.infer<typeof RunResultSchema>;

/** A host capability or WASM call answers with a tagged result: never a rejected promise. */
export const HostCallResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), code: ErrorCodeSchema, message: z.string() }),
]);
export type HostCallResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

export function emptyReceipt(): RunReceipt {
  return { wallMs: 0, modules: [], calls: [], denied: [] };
}
