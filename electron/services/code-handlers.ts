// code.* over the code runner and the shared workflow validator: the request was parsed by the
// contract; a run becomes the runner's request with the host-side grants the contract allows
// (fetch to listed hosts; a workspace and secrets only as the CLI's own grants, passed in the call
// context), a validation runs against the same injected catalog.

import type { Handler } from '../../shared/contract/dispatcher.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import type { SandboxModuleCatalog } from '../../shared/protocol/catalog.ts';
import { ok } from '../../shared/protocol/result.ts';
import { validateWorkflow } from '../../shared/sandbox/validate-workflow.ts';
import type { CodeRunner } from './code-runner.ts';

export function codeHandlers(
  runner: CodeRunner,
  catalog: Pick<SandboxModuleCatalog, 'resolveForExecution'>,
): { 'code.run': Handler<'code.run'>; 'code.cancel': Handler<'code.cancel'>; 'code.validate': Handler<'code.validate'> } {
  return {
    'code.validate': async ({ workflow }) => {
      const issues = validateWorkflow(workflow, catalog);
      return ok({ valid: !issues.some((issue) => issue.severity === 'error'), issues });
    },
    'code.run': ({ code, packages, inputs, fetchHosts, timeoutMs, runId }, context) =>
      runner.run({
        code,
        packages,
        inputs: inputs ?? {},
        grants: {
          ...(fetchHosts && fetchHosts.length > 0 ? { fetch: { hosts: fetchHosts } } : {}),
          // Workspace folders and secrets are the CLI's to grant (its user names them); no other face carries them.
          ...(context.face === 'cli' ? context.grants : {}),
        },
        timeoutMs: timeoutMs ?? LIMITS.guestTimeoutMs,
        ...(runId !== undefined ? { runId } : {}),
        // Warm state (modules compiled ahead) is kept per caller: no run is faster for what another caller imported.
        partition: context.caller ?? context.face,
      }),
    'code.cancel': async ({ runId }) => ok({ cancelled: runner.cancel(runId) }),
  };
}
