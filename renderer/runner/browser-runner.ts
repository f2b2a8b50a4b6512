// "Run in this window": a Code node's code with the shared kernel in a Web Worker of this page.
// It fetches the node's modules by opaque id and verifies each digest (module-source.ts), builds
// the kernel request as the main process does (shared/protocol/kernel-request.ts), and answers
// the guest's calls: WASM through the shared dispatcher over the browser WASM pool (same budgets
// as Node), capabilities through the handler the caller passes (by default refused:
// `refuseCapabilityInWindow`). Only the adapters differ from Node: how a worker starts, how a
// module is fetched, how bytes are hashed. They come in as powers.

import type { Sha256HexAsync } from '../../shared/packs/digest.ts';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import { emptyReceipt, type CapabilityGrants, type HostCallResult, type RunResult } from '../../shared/protocol/run.ts';
import { createWasmDispatcher } from '../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { KernelHost, type KernelHostPorts } from './kernel-host.ts';
import { DigestCache, loadModules, type ExpectedEntries, type ModuleSourcePowers } from './module-source.ts';
import { BrowserWasmPool } from './wasm-pool.ts';
import type { WorkerLike } from './worker-messages.ts';

export interface BrowserRunnerPowers {
  readonly startKernelWorker: () => WorkerLike;
  readonly startWasmWorker: () => WorkerLike;
  readonly engineWasmUrl: string;
  readonly fetchPart: ModuleSourcePowers['fetchPart'];
  readonly sha256: Sha256HexAsync;
  /** WASM pool workers (default: the host's pool size). */
  readonly wasmWorkers?: number;
  /** Time past a run's deadline before the kernel worker is terminated (default 1000 ms). */
  readonly kernelGraceMs?: number;
}

export interface BrowserRunInput {
  readonly code: string;
  /** The node's resolution: specifier → module id and the digest it must have. */
  readonly entries: ExpectedEntries;
  readonly inputs?: Readonly<Record<string, unknown>>;
  readonly grants?: CapabilityGrants;
  readonly timeoutMs?: number;
  /** Declared specifiers whose module runs isolated (KernelRunRequest.isolated). */
  readonly isolated?: readonly string[];
  /** Host side of granted capability calls; default: refused in this window. */
  readonly capability?: KernelHostPorts['capability'];
  /** Replaces the WASM dispatcher (the fixtures' scripted WASM answers); default: the real pool. */
  readonly wasm?: KernelHostPorts['wasm'];
}

/**
 * The default capability handler. The page has no fetch, workspace or secret of its own to lend,
 * so it refuses every capability call with `capability-denied` and says to run in the main
 * process; a node with no grants behaves exactly as there.
 */
export async function refuseCapabilityInWindow(name: string): Promise<HostCallResult> {
  return {
    ok: false,
    code: 'capability-denied',
    message: `${name} is not available when the code runs in this window, which has no fetch, workspace or secrets to lend; the node's Run button runs it in the app with its grants.`,
  };
}

export class BrowserRunner {
  readonly cache = new DigestCache();
  readonly #powers: BrowserRunnerPowers;
  readonly #kernel: KernelHost;
  readonly #wasmPool: BrowserWasmPool;

  constructor(powers: BrowserRunnerPowers) {
    this.#powers = powers;
    this.#kernel = new KernelHost({
      startWorker: powers.startKernelWorker,
      engineWasmUrl: powers.engineWasmUrl,
      ...(powers.kernelGraceMs !== undefined ? { graceMs: powers.kernelGraceMs } : {}),
    });
    this.#wasmPool = new BrowserWasmPool({
      startWorker: powers.startWasmWorker,
      sha256: powers.sha256,
      ...(powers.wasmWorkers !== undefined ? { size: powers.wasmWorkers } : {}),
    });
  }

  get kernelWorkersStarted(): number {
    return this.#kernel.started;
  }

  get wasmWorkersReplaced(): number {
    return this.#wasmPool.replaced;
  }

  async run(input: BrowserRunInput): Promise<RunResult> {
    const started = performance.now();
    const loaded = await loadModules(input.entries, { fetchPart: this.#powers.fetchPart, sha256: this.#powers.sha256 }, this.cache);
    if (!loaded.ok) return { ...loaded, logs: [], receipt: { ...emptyReceipt(), wallMs: performance.now() - started } };
    const { entries, modules } = loaded.value;
    const request = toKernelRequest({
      code: input.code,
      resolution: { entries, modules },
      ...(input.inputs !== undefined ? { inputs: input.inputs } : {}),
      ...(input.grants !== undefined ? { grants: input.grants } : {}),
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
      ...(input.isolated !== undefined ? { isolated: input.isolated } : {}),
    });
    const dispatcher = createWasmDispatcher({ modules }, this.#wasmPool);
    try {
      return await this.#kernel.run(request, {
        capability: input.capability ?? refuseCapabilityInWindow,
        wasm: input.wasm ?? ((moduleId, exportName, args) => dispatcher.bridge(moduleId, exportName, args)),
      });
    } finally {
      dispatcher.close();
    }
  }

  close(): void {
    this.#kernel.close();
    this.#wasmPool.dispose();
  }
}
