// code.* over the code runner and the shared workflow validator: the request was parsed by the
// contract and goes to the runner as it is, with the grants only the host may resolve: the CLI's
// own (a workspace and secret values it read, passed in the call context), or, for a run from the
// app's page, the node's `nodeGrants` by name, resolved here from the secret store and the
// workflow's workspace folder (node-grants.ts, the same resolution the CLI uses); plus the
// caller's partition. A validation runs against the same injected catalog.

import type { CallContext, FaceGrants, Handler } from '../../shared/contract/dispatcher.ts';
import type { SandboxModuleCatalog } from '../../shared/protocol/catalog.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { validateWorkflow } from '../../shared/workflow/validate-workflow.ts';
import type { CodeRunner, CodeRunRequest } from './code-runner.ts';
import { resolveNodeGrants, type GrantSources } from './node-grants.ts';
import { loadRegistryIndex } from '../install/registry-search.ts';

/** The faces whose callers are the user's own app page (the Electron window, the web host's tab). */
const APP_FACES: ReadonlySet<CallContext['face']> = new Set(['ipc', 'http', 'test']);

/** The specifiers the bundled registry index lists: "did you mean" offers them after the installed ones. */
let listed: Promise<string[]> | undefined;
function listedSpecifiers(): Promise<string[]> {
  listed ??= loadRegistryIndex().then((index) => (index.ok ? index.value.packs.flatMap((p) => p.sandboxModules) : []));
  return listed;
}

export function codeHandlers(
  runner: CodeRunner,
  catalog: Pick<SandboxModuleCatalog, 'resolveForExecution' | 'summaries'>,
  grantSources?: Pick<GrantSources, 'secrets' | 'workspaces'>,
): { 'code.run': Handler<'code.run'>; 'code.cancel': Handler<'code.cancel'>; 'code.validate': Handler<'code.validate'> } {
  /** The grants beyond the request's fetch hosts: the CLI's own, or the node's resolved on this side. */
  async function grantsFor(request: CodeRunRequest, context: CallContext): Promise<Result<FaceGrants | undefined>> {
    if (context.face === 'cli') return ok(context.grants);
    const named = request.nodeGrants;
    if (!named || ((named.secrets?.length ?? 0) === 0 && !named.workspace)) return ok(undefined);
    // An agent (MCP) is never lent the user's secrets or folders; only the user's own app page asks for them.
    if (!APP_FACES.has(context.face) || !grantSources)
      return fail('capability-denied', 'Secrets and workspace folders are granted only to runs started in the app.');
    return resolveNodeGrants(named, grantSources);
  }

  return {
    'code.validate': async ({ workflow }) => {
      const issues = validateWorkflow(workflow, catalog, { available: await listedSpecifiers() });
      return ok({ valid: !issues.some((issue) => issue.severity === 'error'), issues });
    },
    'code.run': async (request, context) => {
      const grants = await grantsFor(request, context);
      if (!grants.ok) return grants;
      return runner.run(request, {
        ...(grants.value ? { grants: grants.value } : {}),
        // Warm state (modules compiled ahead) is kept per caller: no run is faster for what another caller imported.
        partition: context.caller ?? context.face,
      });
    },
    'code.cancel': async ({ runId }) => ok({ cancelled: runner.cancel(runId) }),
  };
}
