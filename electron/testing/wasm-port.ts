// Test and bench support: WASM answered on this thread by a port, for a run without a plan. The
// kernel contract fixtures script WASM answers that way, and the WASM guest test and bench compare
// the shared dispatcher there with the app's route (a plan, answered inside the sandbox worker).
// The app's pool refuses WASM calls that reach this side; a pool made here answers them through
// the port its run was given.

import type { HostCallResult } from '../../shared/protocol/run.ts';
import { SandboxPool, type SandboxHostPorts, type SandboxPoolOptions } from '../runtime/sandbox/sandbox-pool.ts';

export interface SandboxWasmPort {
  /** `exportName` and `args` are as the guest passed them: the port checks them (the dispatcher does). */
  call(moduleId: string, exportName: unknown, args: unknown): Promise<HostCallResult>;
}

const portOf = new WeakMap<SandboxHostPorts, SandboxWasmPort>();

/** A run's ports whose WASM calls `port` answers, on a pool from `portedSandboxPool`. */
export function withWasmPort(port: SandboxWasmPort, ports: SandboxHostPorts = {}): SandboxHostPorts {
  const ported = { ...ports };
  portOf.set(ported, port);
  return ported;
}

/** A sandbox pool that answers a run's WASM calls through the port of its ports (withWasmPort). */
export function portedSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  return new SandboxPool({
    ...options,
    answerWasm: async (ports, call) => {
      const port = portOf.get(ports);
      if (!port) return { ok: false, code: 'wasm-not-declared', message: 'This run has no WASM host.' };
      const [exportName, wasmArgs] = call.args;
      return port.call(call.name, exportName, wasmArgs);
    },
  });
}
