// Types for canonical-abi.mjs (plain ESM so the dependency-free Node WASM worker can run it too).

/** A value type of a typed WASM export: the scalars, and the two the canonical ABI lowers to (ptr, len). */
export type CallAbiType = 'i32' | 'f32' | 'f64' | 'bytes' | 'string';

/** How one call of a typed export is lowered and lifted (from its validated manifest declaration). */
export interface CallAbi {
  /** The export as the guest knows it (the manifest's `as`), for sentences; the call names the binary's export. */
  readonly name: string;
  readonly params: readonly CallAbiType[];
  /** Absent for a void export. */
  readonly result?: CallAbiType;
  /** `cabi_post_<export>`, when the module exports it. */
  readonly post?: string;
  /** The most bytes a `bytes`/`string` result may have; checked before copying. */
  readonly maxResultBytes: number;
}

/** One argument as a call message carries it: a number, or a string's UTF-8 / a Uint8Array's bytes. */
export type CallArg = number | Uint8Array;

/** A result longer than the call may return, found before anything was copied. */
export class OutputTooLarge extends Error {}

/** Scalar exports answer a number or undefined; typed bytes/string results are a Uint8Array. */
export function invokeExport(instance: WebAssembly.Instance, exportName: string, args: readonly CallArg[], abi?: CallAbi): number | undefined | Uint8Array;
/** The reply code for what `invokeExport` threw. */
export function failureCode(error: unknown): 'wasm-trap' | 'wasm-budget-bytes' | 'internal';
export function isCallAbi(abi: unknown): abi is CallAbi;
export function isCallArgs(args: unknown): args is CallArg[];
