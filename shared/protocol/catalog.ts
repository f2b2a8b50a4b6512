// The catalog's data types and its interface. One catalog is built where packs are discovered
// and injected into every consumer (kernel, validation, prompts, delivery, CLI). The interface is
// split by consumer so the general surface never hands out filesystem paths or skill bodies:
// module ids are opaque strings, never paths.

import type { ErrorCode } from './codes.ts';
import type { SandboxModuleDeclaration } from './declaration.ts';
import type { DeliveredGraphSource, DeliveredModuleInfo, DeliveryPart } from './delivery.ts';
import type { WasmBudgets, WasmValueType } from './manifest.ts';
import type { Failure } from './result.ts';

export type ModuleKind = 'js' | 'wasm';

/** Module statuses: their own set, separate from pack statuses. */
export const MODULE_STATUSES = ['ready', 'skipped'] as const;
export type ModuleStatus = (typeof MODULE_STATUSES)[number];

/** Pack statuses. */
export const PACK_STATUSES = ['ok', 'rejected'] as const;
export type PackStatus = (typeof PACK_STATUSES)[number];

/** What the UI and the prompt tier may know of a module. */
export interface SandboxModuleSummary {
  readonly specifier: string;
  readonly packName: string;
  readonly packVersion: string;
  readonly kind: ModuleKind;
  readonly status: ModuleStatus;
  /** Present when skipped. */
  readonly code?: ErrorCode;
  readonly reason?: string;
  /** Present when ready. */
  readonly moduleId?: string;
  /** Module-graph digest (sha256 hex), present when ready. */
  readonly digest?: string;
  /** The one-line disclosure tier: derived from manifest fields only, length and charset bounded. */
  readonly summary: string;
  /** Exported names (WASM: the `as` names) when known. */
  readonly exports?: readonly string[];
  /** A ready WASM module's exports with their declared signatures (from the validated binary), for completions. */
  readonly signatures?: readonly WasmExportTypes[];
  readonly hasSkill: boolean;
}

/** The guest-facing name of a WASM export and its types (no binary-internal name). */
export interface WasmExportTypes {
  readonly as: string;
  readonly params: readonly WasmValueType[];
  /** Empty for a void export. */
  readonly results: readonly WasmValueType[];
}

/** Diagnostics: one row per pack, with its modules and warnings. */
export interface SandboxPackStatus {
  readonly name: string;
  readonly version: string;
  readonly status: PackStatus;
  readonly code?: ErrorCode;
  readonly reason?: string;
  readonly warnings: readonly PackWarning[];
  readonly modules: readonly SandboxModuleSummary[];
}

export interface PackWarning {
  readonly code: ErrorCode;
  readonly message: string;
}

/** A WASM export as the bridge knows it after binary validation. */
export interface WasmExportSignature {
  /** Name inside the binary. */
  readonly wasm: string;
  /** Name the guest imports. */
  readonly as: string;
  /** As declared: a `bytes`/`string` parameter is a (ptr, len) pair of i32s in the binary. */
  readonly params: readonly WasmValueType[];
  /** Empty for a void export. A `bytes`/`string` result comes back through a return area. */
  readonly results: readonly WasmValueType[];
  /** `cabi_post_<wasm>`, when the binary exports it (called after a result is read). */
  readonly post?: string;
}

export interface ExecutableWasm {
  readonly bytes: Uint8Array;
  readonly exports: readonly WasmExportSignature[];
  readonly memoryPagesMax: number;
  readonly budgets: WasmBudgets;
}

/**
 * One module the loader may mount. `imports` is the complete map of what this module may import:
 * the request string exactly as written in its source → the module id it resolves to. Anything
 * not in this map is denied by the loader.
 */
export interface ExecutableModule {
  readonly moduleId: string;
  readonly kind: ModuleKind;
  readonly packName: string;
  readonly packVersion: string;
  /** Public specifier, or undefined for an internal helper file. */
  readonly specifier?: string;
  /** For messages: the specifier, or "<pack> internal <path>". */
  readonly displayName: string;
  /** ESM source the guest evaluates (for WASM: the generated facade). */
  readonly source: string;
  readonly imports: Readonly<Record<string, string>>;
  /** Module-graph digest of this module (covers its transitive sources). */
  readonly digest: string;
  readonly wasm?: ExecutableWasm;
  /** This module's own graph sources (ids, kinds, producers), so delivery can let a browser recompute `digest`. */
  readonly graphSources?: readonly DeliveredGraphSource[];
}

export interface ResolvedDeclaration {
  readonly specifier: string;
  readonly moduleId: string;
  readonly packName: string;
  readonly packVersion: string;
  readonly digest: string;
}

export interface SandboxModuleResolutionOk {
  readonly ok: true;
  /** Declared specifier → module id. This is what the node's own code may import. */
  readonly entries: Readonly<Record<string, string>>;
  readonly declarations: readonly ResolvedDeclaration[];
  /** Every module reachable from the entries (declared ones plus intra-pack siblings). */
  readonly modules: Readonly<Record<string, ExecutableModule>>;
}

/** `busy`: the specifier's pack is being installed right now (the first run's seeding); ask again in a moment. */
export type SandboxModuleResolutionError = Failure<'unknown-specifier' | 'internal-specifier' | 'module-skipped' | 'declaration-invalid' | 'busy'> & {
  readonly specifier: string;
  /** When the specifier belongs to a known pack that is not installed or was skipped. */
  readonly packName?: string;
};

export type SandboxModuleResolution = SandboxModuleResolutionOk | SandboxModuleResolutionError;

/** Who asks for a module's source over the delivery route. */
export interface DeliveryPrincipal {
  readonly kind: 'browser' | 'main';
  readonly origin?: string;
}

export interface AuthorizedSandboxModuleDelivery {
  readonly ok: true;
  readonly moduleId: string;
  readonly mediaType: 'text/javascript' | 'application/wasm';
  readonly body: string | Uint8Array;
  readonly digest: string;
  readonly dependencies: readonly string[];
  /** What the browser needs to recompute the digest and mount the module (see delivery.ts). */
  readonly graph?: DeliveredModuleInfo;
}

export type SandboxModuleDelivery = AuthorizedSandboxModuleDelivery | Failure<'not-found' | 'forbidden'>;

export interface SandboxModuleCatalog {
  summaries(): readonly SandboxModuleSummary[];
  resolveForExecution(declarations: readonly SandboxModuleDeclaration[]): SandboxModuleResolution;
  /** `part` 'wasm' asks for a WASM entry's binary instead of its facade source. */
  authorizeDelivery(moduleId: string, principal: DeliveryPrincipal, part?: DeliveryPart): Promise<SandboxModuleDelivery>;
  diagnostics(): readonly SandboxPackStatus[];
}
