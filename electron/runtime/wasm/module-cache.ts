// Compile once per process. Modules are keyed by the sha256 of their bytes — computed here, not
// taken from a caller — so two packs shipping the same binary share one compilation and a
// different binary can never be served under a stale key. The digest of a given bytes object is
// memoized (catalog bytes are immutable once discovered), and compilation runs through
// `WebAssembly.compile`, off the main thread's critical path. Before compiling, the bytes are
// checked again against the host-wide rules (no imports, bounded unshared memory): the pool
// never hands an engine a binary that skipped discovery.

import { createHash } from 'node:crypto';
import { LIMITS, fail, ok, type Result } from '../../../shared/protocol/index.ts';
import { instantiatesQuietly, validateWasmBinary } from '../../../shared/packs/wasm-binary.ts';
import { hostMemoryForm, type HostMemoryShape } from '../../../shared/packs/wasm-memory-import.ts';

export interface CompiledModule {
  readonly digest: string;
  readonly module: WebAssembly.Module;
  /** A worker may keep a fresh instance ready for the next call (`instantiatesQuietly`). */
  readonly spare: boolean;
  /**
   * Set when `module` is the host-memory form of the bytes (it imports its one memory with these
   * limits, see wasm-memory-import.ts), so a worker can zero a kept memory instead of mapping one.
   */
  readonly memory?: HostMemoryShape;
}

export class WasmModuleCache {
  private readonly digests = new WeakMap<Uint8Array, string>();
  private readonly compiled = new Map<string, Promise<Result<CompiledModule>>>();

  constructor(private readonly maxEntries = 64) {}

  digestOf(bytes: Uint8Array): string {
    let digest = this.digests.get(bytes);
    if (digest === undefined) {
      digest = createHash('sha256').update(bytes).digest('hex');
      this.digests.set(bytes, digest);
    }
    return digest;
  }

  get(bytes: Uint8Array): Promise<Result<CompiledModule>> {
    const digest = this.digestOf(bytes);
    let entry = this.compiled.get(digest);
    if (entry) {
      this.compiled.delete(digest); // refresh its place in the eviction order
    } else {
      entry = this.compile(digest, bytes);
    }
    this.compiled.set(digest, entry);
    while (this.compiled.size > this.maxEntries) this.compiled.delete(this.compiled.keys().next().value as string);
    return entry;
  }

  get size(): number {
    return this.compiled.size;
  }

  private async compile(digest: string, bytes: Uint8Array): Promise<Result<CompiledModule>> {
    const checked = validateWasmBinary(bytes, { memoryPagesMax: LIMITS.wasmMemoryPagesCeiling, exports: [] });
    if (!checked.ok) return checked;
    try {
      const spare = instantiatesQuietly(checked.value.instantiation);
      const hosted = hostMemoryForm(bytes);
      if (hosted) return ok({ digest, module: await WebAssembly.compile(hosted.bytes), spare, memory: hosted.memory });
      // Copy into a plain ArrayBuffer: the caller's view may sit on a larger or shared buffer.
      return ok({ digest, module: await WebAssembly.compile(bytes.slice()), spare });
    } catch (error) {
      return fail('wasm-invalid', `the engine could not compile the module: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
