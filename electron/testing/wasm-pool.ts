// Test and bench support: a main-thread WASM worker pool (Node `worker_threads`, four by default)
// implementing the dispatcher's `WasmPoolPort`, so tests and the bench drive the shared pool core
// on Node; production runs WASM through the per-run plan (electron/runtime/wasm/wasm-plan.ts). The
// scheduling — queue, timeouts that terminate and replace a worker, aborts, the start-failure cap
// — is shared with the browser pool in shared/sandbox/wasm/wasm-pool-core.ts; this is the Node adapter,
// posting each module compiled once per process (a structured-cloned `WebAssembly.Module`, from
// the shared `WasmModuleCache`).
// Invariants: each worker runs one call at a time, so a runaway export occupies one worker and
// nothing else. The pool owns its workers and their timers; `dispose()` fails what is pending and
// resolves once every worker — including ones terminated for timeouts — has exited.

import { Worker } from 'node:worker_threads';
import { LIMITS } from '../../shared/protocol/index.ts';
import type { WasmPoolPort, WasmPoolReply, WasmPoolRequest } from '../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { WasmPoolCore, type WasmPoolCoreStats, type WasmPoolWorkerHooks } from '../../shared/sandbox/wasm/wasm-pool-core.ts';
import { WasmModuleCache } from '../runtime/wasm/module-cache.ts';
import { WASM_WORKER_OPTIONS, WASM_WORKER_URL, type WorkerCallMessage } from '../runtime/wasm/worker-protocol.ts';

export interface WasmPoolOptions {
  /** Number of workers (default 4). */
  readonly size?: number;
  /** Workers kept while idle (default `size`), and most at once with a spare beside held ones (default `size`): see WasmPoolCore. */
  readonly keep?: number;
  readonly max?: number;
  /** An idle worker beyond `keep` retires after this long (default: the core's). */
  readonly idleMs?: number;
  /** Shared compile cache; one per process is the point, so pass the same one to every pool. */
  readonly cache?: WasmModuleCache;
  /**
   * The worker entry; defaults to wasm-worker.mjs next to this file. It is plain ESM with no
   * imports beyond Node built-ins, so a bundled build copies it verbatim next to the bundle
   * and passes its URL here (esbuild does not follow `new Worker(url)`).
   */
  readonly workerEntry?: URL;
}

export type WasmPoolStats = WasmPoolCoreStats;

export class WasmPool implements WasmPoolPort {
  readonly size: number;
  private readonly core: WasmPoolCore<WebAssembly.Module, Worker>;

  constructor(options: WasmPoolOptions = {}) {
    const cache = options.cache ?? new WasmModuleCache();
    const workerEntry = options.workerEntry ?? WASM_WORKER_URL;
    this.core = new WasmPoolCore<WebAssembly.Module, Worker>({
      size: options.size ?? LIMITS.wasmPoolSize,
      ...(options.keep !== undefined ? { keep: options.keep } : {}),
      ...(options.max !== undefined ? { max: options.max } : {}),
      ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
      startWorker: (hooks) => startNodeWorker(workerEntry, hooks),
      prepare: (bytes) => cache.get(bytes),
      moduleFields: (module): Pick<WorkerCallMessage, 'module'> => ({ module }),
    });
    this.size = this.core.size;
  }

  call(request: WasmPoolRequest): Promise<WasmPoolReply> {
    return this.core.call(request);
  }

  stats(): WasmPoolStats {
    return this.core.stats();
  }

  /** Thread ids of the live workers (tests use them to see a worker was replaced). */
  threadIds(): number[] {
    return this.core.workers().map((worker) => worker.threadId);
  }

  /** Fails pending calls, terminates every worker and waits until all of them have exited. */
  dispose(): Promise<void> {
    return this.core.dispose();
  }
}

function startNodeWorker(entry: URL, hooks: WasmPoolWorkerHooks): Worker {
  const worker = new Worker(entry, WASM_WORKER_OPTIONS);
  worker.on('message', (raw: unknown) => hooks.message(raw));
  worker.on('error', (error) => hooks.failed(`the WASM worker failed: ${error.message}`));
  worker.on('exit', (code) => hooks.failed(`the WASM worker stopped unexpectedly (exit code ${code})`));
  return worker;
}
