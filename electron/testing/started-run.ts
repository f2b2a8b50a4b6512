// A pool run started by a test that goes on doing other things meanwhile: its stop, its answer,
// and whether it has answered yet (what the fairness and nesting tests assert order with).

import type { KernelRunRequest, RunResult } from '../../shared/protocol/run.ts';
import type { SandboxHostPorts, SandboxPool } from '../runtime/sandbox/sandbox-pool.ts';

export interface StartedRun {
  readonly stop: AbortController;
  readonly result: Promise<RunResult>;
  readonly answered: boolean;
}

export function startRun(pool: SandboxPool, request: KernelRunRequest, ports: SandboxHostPorts = {}): StartedRun {
  const stop = new AbortController();
  const state = { answered: false };
  const result = pool.run(request, ports, stop.signal).then((answer) => {
    state.answered = true;
    return answer;
  });
  return {
    stop,
    result,
    get answered() {
      return state.answered;
    },
  };
}
