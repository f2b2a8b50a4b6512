// Types for instance-supply.mjs (plain ESM so the dependency-free Node WASM worker can run it too).

/** A memory's limits in pages: exactly the module's own (see shared/packs/wasm-memory-import.ts). */
export interface MemoryShape {
  readonly initial: number;
  readonly maximum: number;
}

export function isMemoryShape(shape: unknown): shape is MemoryShape;

export class InstanceSupply {
  constructor(maxKept?: number);
  instantiate(
    digest: string,
    module: WebAssembly.Module,
    shape: MemoryShape | undefined,
  ): { instance: WebAssembly.Instance; memory: WebAssembly.Memory | undefined };
  release(digest: string, shape: MemoryShape | undefined, memory: WebAssembly.Memory | undefined): void;
  readonly kept: number;
}
