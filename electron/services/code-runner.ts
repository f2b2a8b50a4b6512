// Runs one Code node for the contract's `code.run`: resolve its declarations through the injected
// catalog, hand the kernel exactly the resolved sources, and the run's WASM as a plan (compiled
// once per process here; the sandbox worker's own dispatcher and lanes answer the calls, see
// runtime/wasm/wasm-plan.ts), and answer its capability calls through the host handlers for what
// this run was granted. The sandbox pool starts on the first run and is owned (and closed) here.
// A run is the contract's code.run request as its schema parsed it (inputs checked there, once),
// plus what the face adds beyond the contract: the grants the host resolved (the CLI's own, or a
// node's secrets and workspace by name, see code-handlers.ts) and the caller's partition.

import type { FaceGrants } from '../../shared/contract/dispatcher.ts';
import type { ParsedRequestOf } from '../../shared/contract/methods.ts';
import type { SandboxModuleCatalog } from '../../shared/protocol/catalog.ts';
import { isolatedSpecifiers } from '../../shared/protocol/kernel-request.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { RunResult } from '../../shared/protocol/run.ts';
import type { HostGrants } from '../runtime/sandbox/host-capabilities.ts';
import { runCode } from '../runtime/sandbox/run-code.ts';
import { ELASTIC_MAX_WORKERS, SandboxPool } from '../runtime/sandbox/sandbox-pool.ts';
import { WasmModuleCache } from '../runtime/wasm/module-cache.ts';
import { buildWasmPlan } from '../runtime/wasm/wasm-plan.ts';

/** code.run's request as the contract's schema parsed it. */
export type CodeRunRequest = ParsedRequestOf<'code.run'>;

/** What the face adds to a run beyond the contract. */
export interface RunHost {
  /** A workspace folder and secret values, resolved on the host side (node-grants.ts); never from a page. */
  readonly grants?: FaceGrants;
  /** Who asked (see KernelRunRequest.partition): what its runs leave warm serves only its runs. */
  readonly partition?: string;
}

export interface ResolvedPackage {
  readonly specifier: string;
  readonly packName: string;
  readonly packVersion: string;
  readonly digest: string;
}

export interface CodeRun {
  readonly result: RunResult;
  readonly resolved: ResolvedPackage[];
}

export interface CodeRunner {
  run(request: CodeRunRequest, host?: RunHost): Promise<Result<CodeRun>>;
  /** Stop the run started with this id; false when no such run is going (it finished, or never was). */
  cancel(runId: string): boolean;
  close(): Promise<void>;
}

export interface CodeRunnerOptions {
  /** Sandbox worker threads (default 2). */
  readonly sandboxWorkers?: number;
  /** WASM lanes per sandbox worker (default: the per-run WASM concurrency budget, 2). */
  readonly wasmLanes?: number;
  /**
   * Bench and tests only, never set by a face: a run whose fetch hosts are all listed here may
   * reach them on private and loopback addresses (the bench's own loopback server). Hosts not
   * listed, or listed beside others, stay refused as in production.
   */
  readonly testOnlyPrivateFetchHosts?: readonly string[];
}

export function createCodeRunner(catalog: SandboxModuleCatalog, options: CodeRunnerOptions = {}): CodeRunner {
  let sandbox: SandboxPool | undefined;
  const compiled = new WasmModuleCache();
  let closed = false;
  const running = new Map<string, AbortController>();

  return {
    async run(request, host = {}) {
      if (request.runId === undefined) return resolveAndRun(request, host, undefined);
      if (running.has(request.runId)) return fail('invalid-data', `A run with id "${request.runId}" is already going; give each run its own id.`);
      const controller = new AbortController();
      running.set(request.runId, controller);
      try {
        return await resolveAndRun(request, host, controller.signal);
      } finally {
        running.delete(request.runId);
      }
    },
    cancel(runId) {
      const controller = running.get(runId);
      if (!controller) return false;
      controller.abort();
      return true;
    },
    async close() {
      closed = true;
      await sandbox?.close();
      sandbox = undefined;
    },
  };

  /** Resolves the node's packages on the current snapshot, then runs it on the pool (made on the first run). */
  async function resolveAndRun(request: CodeRunRequest, host: RunHost, cancel: AbortSignal | undefined): Promise<Result<CodeRun>> {
    if (closed) return fail('internal', 'The app is shutting down; the run was not started.');
    const resolution = catalog.resolveForExecution(request.packages);
    if (!resolution.ok) return fail(resolution.code, resolution.message);
    // Elastic: runs spinning to their deadline get extra workers in their place, so they never stall the others (issue 17).
    sandbox ??= new SandboxPool({
      size: options.sandboxWorkers ?? 2,
      maxWorkers: ELASTIC_MAX_WORKERS,
      ...(options.wasmLanes !== undefined ? { wasmLanes: options.wasmLanes } : {}),
    });
    const hasWasm = Object.values(resolution.modules).some((m) => m.wasm !== undefined);
    const plan = hasWasm ? await buildWasmPlan(resolution, compiled) : undefined;
    const result = await runCode(sandbox, {
      code: request.code,
      resolution,
      grants: hostGrants(request, host, options.testOnlyPrivateFetchHosts ?? []),
      ...(request.inputs !== undefined ? { inputs: request.inputs } : {}),
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
      ...(host.partition !== undefined ? { partition: host.partition } : {}),
      isolated: isolatedSpecifiers(request.packages),
      ...(plan ? { wasm: { plan } } : {}),
      ...(cancel ? { cancel } : {}),
    });
    const resolved = resolution.declarations.map((d) => ({ specifier: d.specifier, packName: d.packName, packVersion: d.packVersion, digest: d.digest }));
    return ok({ result, resolved });
  }
}

/** A run's host grants: fetch to the hosts the request lists, and whatever the face grants itself. */
function hostGrants(request: CodeRunRequest, host: RunHost, privateHosts: readonly string[]): HostGrants {
  const hosts = request.fetchHosts ?? [];
  const allowPrivate = privateHosts.length > 0 && hosts.every((h) => privateHosts.includes(h));
  return {
    ...(hosts.length > 0 ? { fetch: { hosts, ...(allowPrivate ? { allowPrivate } : {}) } } : {}),
    ...host.grants,
  };
}
