// The workflow editor: create, open and save workflows of Code nodes through workflows.* (one
// JSON file per name in the data directory, the format `sandbox-packs validate` reads). Saving
// stamps every unstamped declaration with the installed version and digest.

import { useId, useMemo, useState, type FormEvent } from 'react';
import { WorkflowNameSchema } from '../../../shared/contract/schemas.ts';
import { useContractClient, useContractQuery } from '../../api/client-context.tsx';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { useDraftStore } from '../../state/workflow-draft.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { CodeNodeEditor } from './code-node-editor.tsx';
import { moduleBySpecifier, stampMissing } from './declarations.ts';

export function WorkflowEditor() {
  const draft = useDraftStore();
  const client = useContractClient();
  const names = useContractQuery('workflows.list', {});
  const summaries = useContractQuery('catalog.summaries', {});
  const save = useContractMutation('workflows.save');
  const [openName, setOpenName] = useState('');
  const [openError, setOpenError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const id = useId();
  const modules = useMemo(() => summaries.data?.modules ?? [], [summaries.data]);
  const byId = useMemo(() => moduleBySpecifier(modules), [modules]);
  const nameCheck = WorkflowNameSchema.safeParse(draft.name);

  const onSave = (event: FormEvent) => {
    event.preventDefault();
    if (!nameCheck.success) return;
    const workflow = { nodes: draft.workflow.nodes.map((n) => ({ ...n, packages: stampMissing(n.packages, byId) })) };
    save.mutate(
      { name: draft.name, workflow },
      {
        onSuccess: (value) => {
          draft.markSaved(workflow);
          setSaved(`Saved "${value.name}".`);
        },
      },
    );
  };

  const onOpen = async () => {
    setOpenError(undefined);
    setSaved(undefined);
    if (openName === '') return;
    const loaded = await client.call('workflows.load', { name: openName });
    if (!loaded.ok) setOpenError(loaded.message);
    else draft.load(loaded.value.name, loaded.value.workflow);
  };

  return (
    <div>
      <section className="panel" aria-labelledby={`${id}-h`}>
        <h2 id={`${id}-h`}>Workflow{draft.name ? `: ${draft.name}` : ''}{draft.dirty ? ' (unsaved changes)' : ''}</h2>
        <div className="toolbar">
          <form className="row" onSubmit={onSave}>
            <label htmlFor={`${id}-name`}>Name</label>
            <input id={`${id}-name`} value={draft.name} onChange={(e) => { setSaved(undefined); draft.setName(e.target.value); }} placeholder="my-workflow" aria-invalid={draft.name !== '' && !nameCheck.success} />
            <button type="submit" className="primary" disabled={!nameCheck.success || save.isPending}>
              Save workflow
            </button>
          </form>
          <div className="row">
            <label htmlFor={`${id}-open`}>Saved</label>
            <select id={`${id}-open`} value={openName} onChange={(e) => setOpenName(e.target.value)}>
              <option value="">Choose a workflow…</option>
              {(names.data?.names ?? []).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
            <button type="button" onClick={() => void onOpen()} disabled={openName === ''}>
              Open
            </button>
            <button type="button" onClick={() => { setSaved(undefined); draft.reset(); }}>
              New workflow
            </button>
          </div>
        </div>
        {draft.name !== '' && !nameCheck.success && <p className="warn-text small">{nameCheck.error.issues[0]?.message}</p>}
        {saved && !draft.dirty && <p role="status" className="ok-text">{saved}</p>}
        {openError && <p role="alert" className="failure">{openError}</p>}
        <FailureText error={save.error} prefix="Saving failed:" />
        <FailureText error={summaries.error} />
      </section>
      {draft.workflow.nodes.map((node) => (
        <CodeNodeEditor key={`${draft.generation}/${node.id}`} node={node} modules={modules} byId={byId} />
      ))}
      <div className="actions">
        <button type="button" onClick={draft.addNode}>
          Add Code node
        </button>
      </div>
    </div>
  );
}
