// code.* over the code runner and the shared workflow validator: the request was parsed by the
// contract and goes to the runner as it is, with what only the face may add (a workspace and
// secrets as the CLI's own grants, passed in the call context; the caller's partition); a
// validation runs against the same injected catalog.

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { SandboxModuleCatalog } from '../../shared/protocol/catalog.ts';
import { ok } from '../../shared/protocol/result.ts';
import { validateWorkflow } from '../../shared/workflow/validate-workflow.ts';
import type { CodeRunner } from './code-runner.ts';
import { loadRegistryIndex } from '../install/registry-search.ts';

/** The specifiers the bundled registry index lists: "did you mean" offers them after the installed ones. */
let listed: Promise<string[]> | undefined;
function listedSpecifiers(): Promise<string[]> {
  listed ??= loadRegistryIndex().then((index) => (index.ok ? index.value.packs.flatMap((p) => p.sandboxModules) : []));
  return listed;
}

export function codeHandlers(
  runner: CodeRunner,
  catalog: Pick<SandboxModuleCatalog, 'resolveForExecution' | 'summaries'>,
): { 'code.run': Handler<'code.run'>; 'code.cancel': Handler<'code.cancel'>; 'code.validate': Handler<'code.validate'> } {
  return {
    'code.validate': async ({ workflow }) => {
      const issues = validateWorkflow(workflow, catalog, { available: await listedSpecifiers() });
      return ok({ valid: !issues.some((issue) => issue.severity === 'error'), issues });
    },
    'code.run': (request, context) =>
      runner.run(request, {
        // Workspace folders and secrets are the CLI's to grant (its user names them); no other face carries them.
        ...(context.face === 'cli' && context.grants ? { grants: context.grants } : {}),
        // Warm state (modules compiled ahead) is kept per caller: no run is faster for what another caller imported.
        partition: context.caller ?? context.face,
      }),
    'code.cancel': async ({ runId }) => ok({ cancelled: runner.cancel(runId) }),
  };
}
