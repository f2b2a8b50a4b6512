// workflows.* over the workflow store (one JSON file per name in the data directory).

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { Workflow } from '../../shared/protocol/workflow.ts';
import { ok } from '../../shared/protocol/result.ts';
import type { WorkflowStore } from './workflow-store.ts';
import type { WorkspaceStore } from './workspace-store.ts';

export function workflowHandlers(
  store: WorkflowStore<Workflow>,
  workspaces: Pick<WorkspaceStore, 'rename'>,
): {
  'workflows.list': Handler<'workflows.list'>;
  'workflows.load': Handler<'workflows.load'>;
  'workflows.save': Handler<'workflows.save'>;
  'workflows.rename': Handler<'workflows.rename'>;
  'workflows.delete': Handler<'workflows.delete'>;
} {
  return {
    'workflows.list': async () => {
      const names = await store.list();
      return names.ok ? ok({ names: names.value }) : names;
    },
    'workflows.load': async ({ name }) => {
      const workflow = await store.load(name);
      return workflow.ok ? ok({ name, workflow: workflow.value }) : workflow;
    },
    'workflows.save': async ({ name, workflow }) => {
      const saved = await store.save(name, workflow);
      return saved.ok ? ok({ name }) : saved;
    },
    'workflows.rename': async ({ from, to }) => {
      const renamed = await store.rename(from, to);
      if (!renamed.ok) return renamed;
      // The workflow's workspace folder follows it; if it cannot, the rename is undone so the
      // workflow and its files stay together.
      const moved = await workspaces.rename(from, renamed.value);
      if (moved.ok) return ok({ name: renamed.value });
      await store.rename(renamed.value, from);
      return moved;
    },
    'workflows.delete': async ({ name }) => {
      const removed = await store.remove(name);
      return removed.ok ? ok({ name }) : removed;
    },
  };
}
