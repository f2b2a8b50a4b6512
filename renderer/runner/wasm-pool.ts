// The browser WASM pool on Web Workers: it implements the dispatcher's `WasmPoolPort`. The
// scheduling — queue, timeouts that terminate and replace a worker, aborts, the start-failure
// cap — is the Node pool's too and lives in shared/sandbox/wasm/wasm-pool-core.ts; this file is the
// page's adapter: it starts workers through the injected `startWorker` and posts module bytes.
//
// Modules are keyed by the sha256 of their bytes (computed here with the injected hash) and
// checked again against the host-wide binary rules; the workers compile them (the page compiles no
// WebAssembly, so its CSP stays without 'wasm-unsafe-eval'). `dispose()` fails what is pending and
// terminates every worker.

import { validateWasmBinary } from '../../shared/packs/wasm-binary.ts';
import { hostMemoryForm, type HostMemoryShape } from '../../shared/packs/wasm-memory-import.ts';
import type { Sha256HexAsync } from '../../shared/packs/digest.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { ok, type Result } from '../../shared/protocol/result.ts';
import type { WasmPoolPort, WasmPoolReply, WasmPoolRequest } from '../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { WasmPoolCore, type PreparedWasmModule, type WasmPoolWorker, type WasmPoolWorkerHooks } from '../../shared/sandbox/wasm/wasm-pool-core.ts';
import type { WorkerLike } from './worker-messages.ts';

export interface BrowserWasmPoolOptions {
  readonly startWorker: () => WorkerLike;
  readonly sha256: Sha256HexAsync;
  /** Number of workers (default: the host's WASM pool size). */
  readonly size?: number;
}

/**
 * A page runs one run at a time (its kernel host has one worker), so a run's calls never wait for
 * another's; but when a run's calls spin, both of a small pool's workers may be stopped with it,
 * and the next run's call would wait for a Web Worker to start. A pool below the host's size may
 * start one spare beside workers held by spinning calls (WasmPoolCore), never more than the host's
 * process-wide pool size.
 */
function spareMax(size: number): number {
  return Math.max(size, Math.min(size + 1, LIMITS.wasmPoolSize));
}

/** How many checked binaries to remember (by digest), least recently used first out. */
const CHECKED_MAX = 64;

export class BrowserWasmPool implements WasmPoolPort {
  readonly size: number;
  readonly #core: WasmPoolCore<Uint8Array, WasmPoolWorker>;
  readonly #sha256: Sha256HexAsync;
  readonly #digests = new WeakMap<Uint8Array, Promise<string>>();
  /** Checked binaries by digest: the bytes a worker compiles (the host-memory form when there is one) and that memory's limits. */
  readonly #checked = new Map<string, Result<{ bytes: Uint8Array; memory: HostMemoryShape | undefined }>>();

  constructor(options: BrowserWasmPoolOptions) {
    this.#sha256 = options.sha256;
    this.#core = new WasmPoolCore<Uint8Array, WasmPoolWorker>({
      size: options.size ?? LIMITS.wasmPoolSize,
      max: spareMax(options.size ?? LIMITS.wasmPoolSize),
      startWorker: (hooks) => startPageWorker(options.startWorker, hooks),
      prepare: (bytes) => this.#check(bytes),
      // A fresh copy per post: the buffer is the worker's to compile from.
      moduleFields: (bytes) => ({ bytes: bytes.slice().buffer }),
    });
    this.size = this.#core.size;
  }

  call(request: WasmPoolRequest): Promise<WasmPoolReply> {
    return this.#core.call(request);
  }

  get workers(): number {
    return this.#core.stats().workers;
  }

  /** Workers started over the pool's life, the first ones included. */
  get started(): number {
    return this.#core.stats().started;
  }

  /** Workers terminated for a timeout, an abort, a malformed reply or a crash. */
  get replaced(): number {
    return this.#core.stats().replaced;
  }

  dispose(): void {
    // Web Workers terminate synchronously; nothing is left to wait for.
    void this.#core.dispose();
  }

  async #check(bytes: Uint8Array): Promise<Result<PreparedWasmModule<Uint8Array>>> {
    let digestPromise = this.#digests.get(bytes);
    if (!digestPromise) {
      digestPromise = this.#sha256(bytes);
      this.#digests.set(bytes, digestPromise);
    }
    const digest = await digestPromise;
    let entry = this.#checked.get(digest);
    if (entry) this.#checked.delete(digest);
    else {
      const checked = validateWasmBinary(bytes, { memoryPagesMax: LIMITS.wasmMemoryPagesCeiling, exports: [] });
      // As on Node (module-cache.ts): a module whose memory the worker can zero and keep imports it.
      const hosted = checked.ok ? hostMemoryForm(bytes) : undefined;
      entry = checked.ok ? ok(hosted ? { bytes: hosted.bytes, memory: hosted.memory } : { bytes: bytes.slice(), memory: undefined }) : checked;
    }
    this.#checked.set(digest, entry);
    while (this.#checked.size > CHECKED_MAX) this.#checked.delete(this.#checked.keys().next().value as string);
    return entry.ok ? ok({ digest, module: entry.value.bytes, ...(entry.value.memory ? { memory: entry.value.memory } : {}) }) : entry;
  }
}

function startPageWorker(start: () => WorkerLike, hooks: WasmPoolWorkerHooks): WasmPoolWorker {
  const worker = start();
  worker.onmessage = (event) => hooks.message(event.data);
  worker.onerror = (event) => {
    event.preventDefault?.();
    hooks.failed(`the WASM worker failed: ${event.message || 'unknown error'}`);
  };
  return {
    postMessage: (message) => worker.postMessage(message),
    terminate: () => {
      worker.onmessage = null;
      worker.onerror = null;
      worker.terminate();
    },
  };
}
