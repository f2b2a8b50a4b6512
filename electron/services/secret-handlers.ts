// secrets.* over the secret store and workspaces.* over the workspace store. No answer here
// carries a secret's value (the contract's schemas have no field for one). The system's folder
// picker is a power the desktop app injects; only its own window (the IPC face) may open it.

import type { CallContext, Handler } from '../../shared/contract/dispatcher.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { SecretStore } from './secret-store.ts';
import type { WorkspaceFolder, WorkspaceStore } from './workspace-store.ts';

/** Shows the system's folder picker; the chosen folder's path, or undefined when cancelled. */
export type PickFolder = (title: string) => Promise<string | undefined>;

export function secretHandlers(
  secrets: SecretStore,
  workspaces: WorkspaceStore,
  pickFolder?: PickFolder,
): {
  'secrets.list': Handler<'secrets.list'>;
  'secrets.set': Handler<'secrets.set'>;
  'secrets.delete': Handler<'secrets.delete'>;
  'workspaces.get': Handler<'workspaces.get'>;
  'workspaces.set': Handler<'workspaces.set'>;
  'workspaces.pick': Handler<'workspaces.pick'>;
} {
  const canPick = (context: CallContext): boolean => pickFolder !== undefined && context.face === 'ipc';
  const withPick = (folder: Result<WorkspaceFolder>, context: CallContext) => (folder.ok ? ok({ ...folder.value, canPick: canPick(context) }) : folder);
  return {
    'secrets.list': async () => {
      const names = await secrets.list();
      return names.ok ? ok({ storage: secrets.storage, names: names.value }) : names;
    },
    'secrets.set': async ({ name, value }) => {
      const saved = await secrets.set(name, value);
      return saved.ok ? ok({ name }) : saved;
    },
    'secrets.delete': async ({ name }) => {
      const deleted = await secrets.delete(name);
      return deleted.ok ? ok({ name, deleted: deleted.value }) : deleted;
    },
    'workspaces.get': async ({ workflow }, context) => withPick(await workspaces.get(workflow), context),
    'workspaces.set': async ({ workflow, path }, context) => withPick(await workspaces.set(workflow, path), context),
    'workspaces.pick': async ({ workflow }, context) => {
      if (!pickFolder || !canPick(context))
        return fail('capability-denied', "Only the desktop app can show the system's folder picker; type the folder's full path instead.");
      const picked = await pickFolder(`Workspace folder for "${workflow}"`);
      if (picked === undefined) return ok({ folder: null });
      const folder = withPick(await workspaces.set(workflow, picked), context);
      return folder.ok ? ok({ folder: folder.value }) : folder;
    },
  };
}
