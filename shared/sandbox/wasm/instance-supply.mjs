// Fresh instances for WASM calls, in the Node lane (electron/runtime/wasm/wasm-worker.mjs) and the
// browser's Web Worker (renderer/runner/wasm-worker.ts) alike. It is plain ESM with no imports, like
// canonical-abi.mjs, so the dependency-free Node worker can load it.
//
// Every call gets a new instance. A module that the host rewrote to import its memory
// (shared/packs/wasm-memory-import.ts) gets a kept memory, zeroed in full, instead of a new
// mapping: the new instance sees exactly what a fresh memory of its own would hold, all zeros and
// then its data segments. A memory that grew during a call is dropped, never handed out again.

/** Where the rewritten binary imports its memory from (HOST_MEMORY_IMPORT in wasm-memory-import.ts). */
const IMPORT_MODULE = 'sandbox-packs';
const IMPORT_NAME = 'memory';
const PAGE = 65536;

/** True when `shape` is a memory's `{ initial, maximum }` in pages, as the host sends it. */
export function isMemoryShape(shape) {
  return (
    shape !== null &&
    typeof shape === 'object' &&
    Number.isSafeInteger(shape.initial) &&
    Number.isSafeInteger(shape.maximum) &&
    shape.initial >= 0 &&
    shape.maximum >= shape.initial &&
    shape.maximum <= 65536
  );
}

export class InstanceSupply {
  /** digest → a memory no instance is using, of the module's initial size; not zeroed yet. */
  #kept = new Map();
  #max;

  /** `maxKept`: memories kept at most (one per module; the least recently used goes first). */
  constructor(maxKept = 4) {
    this.#max = maxKept;
  }

  /**
   * A fresh instance of `module` (the `digest` of its original bytes names it). With `shape`, the
   * module imports its memory and gets a zeroed kept one, or a new one; hand it back with
   * `release` once the call is over.
   */
  instantiate(digest, module, shape) {
    if (shape === undefined) return { instance: new WebAssembly.Instance(module, {}), memory: undefined };
    const memory = this.#take(digest, shape);
    const instance = new WebAssembly.Instance(module, { [IMPORT_MODULE]: { [IMPORT_NAME]: memory } });
    return { instance, memory };
  }

  /** The call that used `memory` is over: keep it for the module's next call, unless it grew. */
  release(digest, shape, memory) {
    if (memory === undefined || shape === undefined) return;
    if (memory.buffer.byteLength !== shape.initial * PAGE) return;
    this.#kept.delete(digest);
    this.#kept.set(digest, memory);
    while (this.#kept.size > this.#max) this.#kept.delete(this.#kept.keys().next().value);
  }

  /** Memories kept now (tests and stats). */
  get kept() {
    return this.#kept.size;
  }

  #take(digest, shape) {
    const memory = this.#kept.get(digest);
    this.#kept.delete(digest);
    if (memory !== undefined && memory.buffer.byteLength === shape.initial * PAGE) {
      new Uint8Array(memory.buffer).fill(0);
      return memory;
    }
    return new WebAssembly.Memory({ initial: shape.initial, maximum: shape.maximum });
  }
}
