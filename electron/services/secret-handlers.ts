// secrets.* over the secret store and workspaces.* over the workspace store. No answer here
// carries a secret's value (the contract's schemas have no field for one).

import type { Handler } from '../../shared/contract/dispatcher.ts';
import { ok } from '../../shared/protocol/result.ts';
import type { SecretStore } from './secret-store.ts';
import type { WorkspaceStore } from './workspace-store.ts';

export function secretHandlers(
  secrets: SecretStore,
  workspaces: WorkspaceStore,
): {
  'secrets.list': Handler<'secrets.list'>;
  'secrets.set': Handler<'secrets.set'>;
  'secrets.delete': Handler<'secrets.delete'>;
  'workspaces.get': Handler<'workspaces.get'>;
  'workspaces.set': Handler<'workspaces.set'>;
} {
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
    'workspaces.get': ({ workflow }) => workspaces.get(workflow),
    'workspaces.set': ({ workflow, path }) => workspaces.set(workflow, path),
  };
}
