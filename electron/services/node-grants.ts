// The one place a node's secret and workspace grants become values and a folder, for every face:
// a run from the app (code.run with `nodeGrants`) and `sandbox-packs run` (a code file's --secret
// and --workspace, or a saved workflow's node) both come here. Secrets come from the secret store;
// a value the caller takes from elsewhere (the CLI's environment for --secret NAME) is passed in
// `overrides` and wins. The workspace is the workflow's folder from the workspace store, unless the
// caller names one itself (the CLI's --workspace).

import type { FaceGrants } from '../../shared/contract/dispatcher.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { SecretStore } from './secret-store.ts';
import type { WorkspaceStore } from './workspace-store.ts';

export interface NodeGrantRequest {
  /** The secret names the node is granted. */
  readonly secrets?: readonly string[];
  /** The workflow whose workspace folder the node may use. */
  readonly workspace?: { readonly workflow: string };
}

export interface GrantSources {
  readonly secrets: SecretStore;
  readonly workspaces: WorkspaceStore;
  /** Values that win over the store's (the CLI: environment variables named with --secret). */
  readonly overrides?: Readonly<Record<string, string | undefined>>;
  /** A folder that wins over the workflow's (the CLI: --workspace). */
  readonly workspaceDir?: string;
}

export async function resolveNodeGrants(request: NodeGrantRequest, sources: GrantSources): Promise<Result<FaceGrants>> {
  const grants: { workspace?: { dir: string }; secrets?: Record<string, string | undefined> } = {};
  const names = [...new Set(request.secrets ?? [])];
  if (names.length > 0) {
    const stored = await sources.secrets.values(names);
    if (!stored.ok) return stored;
    const secrets: Record<string, string | undefined> = {};
    for (const name of names) secrets[name] = sources.overrides?.[name] ?? stored.value[name];
    grants.secrets = secrets;
  }
  if (sources.workspaceDir !== undefined) grants.workspace = { dir: sources.workspaceDir };
  else if (request.workspace) {
    const dir = await sources.workspaces.forRun(request.workspace.workflow);
    if (!dir.ok) return fail(dir.code, dir.message);
    grants.workspace = { dir: dir.value };
  }
  return ok(grants);
}
