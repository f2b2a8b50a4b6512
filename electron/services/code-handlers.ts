// code.* over the code runner: the request was parsed by the contract; here it becomes the
// runner's request with the host-side grants the contract allows (fetch to listed hosts only).

import type { Handler } from '../../shared/contract/dispatcher.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import type { CodeRunner } from './code-runner.ts';

export function codeHandlers(runner: CodeRunner): { 'code.run': Handler<'code.run'> } {
  return {
    'code.run': ({ code, packages, inputs, fetchHosts, timeoutMs }) =>
      runner.run({
        code,
        packages,
        inputs: inputs ?? {},
        grants: fetchHosts && fetchHosts.length > 0 ? { fetch: { hosts: fetchHosts } } : {},
        timeoutMs: timeoutMs ?? LIMITS.guestTimeoutMs,
      }),
  };
}
