// Runs one Code node for the contract's `code.run`: resolve its declarations through the injected
// catalog, hand the kernel exactly the resolved sources, answer its WASM calls through a per-run
// dispatcher over the shared WASM pool, and its capability calls through the host handlers for
// what this run was granted. The pools start on the first run and are owned (and closed) here.

import type { SandboxModuleCatalog } from '../../shared/protocol/catalog.ts';
import type { SandboxModuleDeclaration } from '../../shared/protocol/declaration.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { RunResult } from '../../shared/protocol/run.ts';
import { createWasmDispatcher } from '../../shared/sandbox/wasm-dispatcher.ts';
import type { HostGrants } from '../runtime/sandbox/host-capabilities.ts';
import { runCode } from '../runtime/sandbox/run-code.ts';
import { SandboxPool } from '../runtime/sandbox/sandbox-pool.ts';
import { WasmPool } from '../runtime/wasm/wasm-pool.ts';

export interface CodeRunRequest {
  readonly code: string;
  readonly packages: readonly SandboxModuleDeclaration[];
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly grants: HostGrants;
  readonly timeoutMs: number;
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
  run(request: CodeRunRequest): Promise<Result<CodeRun>>;
  close(): Promise<void>;
}

export function createCodeRunner(catalog: SandboxModuleCatalog, options: { sandboxWorkers?: number; wasmWorkers?: number } = {}): CodeRunner {
  let sandbox: SandboxPool | undefined;
  let wasm: WasmPool | undefined;
  let closed = false;

  return {
    async run(request) {
      if (closed) return fail('internal', 'The app is shutting down; the run was not started.');
      const resolution = catalog.resolveForExecution(request.packages);
      if (!resolution.ok) return fail(resolution.code, resolution.message);
      sandbox ??= new SandboxPool({ size: options.sandboxWorkers ?? 2 });
      const hasWasm = Object.values(resolution.modules).some((m) => m.wasm !== undefined);
      if (hasWasm) wasm ??= new WasmPool({ size: options.wasmWorkers });
      const dispatcher = hasWasm && wasm ? createWasmDispatcher(resolution, wasm) : undefined;
      try {
        const result = await runCode(sandbox, {
          code: request.code,
          resolution,
          inputs: request.inputs,
          grants: request.grants,
          timeoutMs: request.timeoutMs,
          ...(dispatcher ? { wasm: { call: (id: string, name: string, args: unknown[]) => dispatcher.bridge(id, name, args) } } : {}),
        });
        const resolved = resolution.declarations.map((d) => ({ specifier: d.specifier, packName: d.packName, packVersion: d.packVersion, digest: d.digest }));
        return ok({ result, resolved });
      } finally {
        dispatcher?.close();
      }
    },
    async close() {
      closed = true;
      await Promise.all([sandbox?.close(), wasm?.dispose()]);
      sandbox = undefined;
      wasm = undefined;
    },
  };
}
