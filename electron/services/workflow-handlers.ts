// workflows.* over the workflow store (one JSON file per name in the data directory).

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { Workflow } from '../../shared/protocol/workflow.ts';
import { ok } from '../../shared/protocol/result.ts';
import type { WorkflowStore } from './workflow-store.ts';

export function workflowHandlers(store: WorkflowStore<Workflow>): {
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
      return renamed.ok ? ok({ name: renamed.value }) : renamed;
    },
    'workflows.delete': async ({ name }) => {
      const removed = await store.remove(name);
      return removed.ok ? ok({ name }) : removed;
    },
  };
}
