// The one Node-side entry that runs a Code node's code on a sandbox pool (the code runner calls
// it; tests of the pool with real capabilities do too): the kernel request from the shared
// translation (shared/protocol/kernel-request.ts), the host's capability handlers from the same
// grants, so what the guest is told it may call and what the host answers cannot disagree.

import { toKernelRequest, type KernelRequestParts } from '../../../shared/protocol/kernel-request.ts';
import type { RunResult } from '../../../shared/protocol/run.ts';
import { hostCapabilities, kernelGrants, type HostGrants } from './host-capabilities.ts';
import type { SandboxHostPorts, SandboxPool, SandboxWasmPlan } from './sandbox-pool.ts';

export interface HostRun extends Omit<KernelRequestParts, 'grants'> {
  /** The host-side grants (hosts, a workspace folder, secret values); the guest is told only which. */
  readonly grants?: HostGrants;
  /** The run's WASM plan, when the resolution has WASM modules. */
  readonly wasm?: SandboxWasmPlan;
  /** Fires when the user stops the run (code.cancel). */
  readonly cancel?: AbortSignal;
}

export function runCode(pool: SandboxPool, run: HostRun): Promise<RunResult> {
  const grants = run.grants ?? {};
  const request = toKernelRequest({
    code: run.code,
    resolution: run.resolution,
    grants: kernelGrants(grants),
    ...(run.inputs !== undefined ? { inputs: run.inputs } : {}),
    ...(run.timeoutMs !== undefined ? { timeoutMs: run.timeoutMs } : {}),
    ...(run.partition !== undefined ? { partition: run.partition } : {}),
    ...(run.isolated !== undefined ? { isolated: run.isolated } : {}),
  });
  const ports: SandboxHostPorts = run.wasm ? { capability: hostCapabilities(grants), wasm: run.wasm } : { capability: hostCapabilities(grants) };
  return pool.run(request, ports, run.cancel);
}
