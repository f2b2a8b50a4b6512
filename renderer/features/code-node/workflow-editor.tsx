// The workflow editor: create, open and save workflows of Code nodes through workflows.* (one
// JSON file per name in the data directory, the format `sandbox-packs validate` reads). Saving
// stamps every unstamped declaration with the installed version and digest. Nothing is replaced
// silently: New and Open ask first while the draft has unsaved changes, and a removed node can be
// put back. The Saved select shows the saved workflow that is open (after Save or Open, and after a
// reload of a draft that has one), "(unsaved)" for a new one, and the user's pick until it is opened.
// A first visit opens the example workflow; Rename… and Delete… act on the picked saved workflow.

import { useId, useMemo, useState, type FormEvent } from 'react';
import { WorkflowNameSchema } from '../../../shared/contract/schemas.ts';
import type { Workflow } from '../../../shared/protocol/workflow.ts';
import { useContractClient, useContractQuery } from '../../api/client-context.tsx';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { useDraftStore } from '../../state/workflow-draft.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { CodeNodeEditor } from './code-node-editor.tsx';
import { moduleBySpecifier, stampMissing } from './declarations.ts';
import { DiscardGuard } from './discard-guard.tsx';
import { useFirstVisitExample } from './use-first-visit-example.ts';
import { WorkflowFileActions } from './workflow-file-actions.tsx';

/** What the user asked for that would replace the draft, held while the guard asks. */
type Pending = { readonly kind: 'new' } | { readonly kind: 'open'; readonly name: string };

export function WorkflowEditor() {
  const draft = useDraftStore();
  const client = useContractClient();
  const names = useContractQuery('workflows.list', {});
  const summaries = useContractQuery('catalog.summaries', {});
  const save = useContractMutation('workflows.save');
  // The saved workflow the draft came from or was last saved as ('' for a new one); the pick made in the select, until opened.
  const [current, setCurrent] = useState(() => useDraftStore.getState().name);
  const [choice, setChoice] = useState<string | undefined>(undefined);
  const [openError, setOpenError] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const [fileDone, setFileDone] = useState<string | undefined>(undefined);
  const id = useId();
  const modules = useMemo(() => summaries.data?.modules ?? [], [summaries.data]);
  const byId = useMemo(() => moduleBySpecifier(modules), [modules]);
  const nameCheck = WorkflowNameSchema.safeParse(draft.name);

  const saveDraft = (then?: () => void) => {
    if (!nameCheck.success) return;
    const workflow: Workflow = { nodes: draft.workflow.nodes.map((n) => ({ ...n, packages: stampMissing(n.packages, byId) })) };
    save.mutate(
      { name: draft.name, workflow },
      {
        onSuccess: (value) => {
          draft.markSaved(workflow);
          setCurrent(value.name);
          setChoice(undefined);
          setFileDone(undefined);
          setSaved(`Saved "${value.name}".`);
          then?.();
        },
      },
    );
  };

  const onSave = (event: FormEvent) => {
    event.preventDefault();
    saveDraft();
  };

  const open = async (name: string) => {
    setOpenError(undefined);
    setSaved(undefined);
    setFileDone(undefined);
    const loaded = await client.call('workflows.load', { name });
    if (!loaded.ok) setOpenError(loaded.message);
    else {
      draft.load(loaded.value.name, loaded.value.workflow);
      setCurrent(loaded.value.name);
      setChoice(undefined);
    }
  };

  const carryOut = (action: Pending) => {
    setPending(undefined);
    if (action.kind === 'new') {
      setSaved(undefined);
      setFileDone(undefined);
      draft.reset();
      setCurrent('');
      setChoice(undefined);
    } else void open(action.name);
  };

  const request = (action: Pending) => {
    if (useDraftStore.getState().dirty) setPending(action);
    else carryOut(action);
  };

  useFirstVisitExample(names.data?.names, (name) => void open(name));

  const savedNames = names.data?.names ?? [];
  // A draft named after nothing saved (new, or a saved file since deleted) shows the placeholder.
  const shown = choice ?? (savedNames.includes(current) ? current : '');

  return (
    <div>
      <section className="panel" aria-labelledby={`${id}-h`}>
        <h2 id={`${id}-h`}>
          Workflow{draft.name ? `: ${draft.name}` : ''}
          {draft.dirty ? ' (unsaved changes)' : ''}
        </h2>
        <div className="toolbar">
          <form className="row" onSubmit={onSave}>
            <label htmlFor={`${id}-name`}>Name</label>
            <input
              id={`${id}-name`}
              value={draft.name}
              onChange={(e) => {
                setSaved(undefined);
                draft.setName(e.target.value);
              }}
              placeholder="my-workflow"
              aria-invalid={draft.name !== '' && !nameCheck.success}
            />
            <button type="submit" className="primary" disabled={!nameCheck.success || save.isPending}>
              Save workflow
            </button>
          </form>
          <div className="row">
            <label htmlFor={`${id}-open`}>Saved</label>
            <select id={`${id}-open`} value={shown} onChange={(e) => setChoice(e.target.value)}>
              <option value="">(unsaved)</option>
              {savedNames.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
            <button type="button" onClick={() => request({ kind: 'open', name: shown })} disabled={shown === ''}>
              Open
            </button>
            <WorkflowFileActions
              picked={shown}
              current={current}
              savedNames={savedNames}
              onCurrentChanged={setCurrent}
              onDone={(sentence) => {
                setChoice(undefined);
                setSaved(undefined);
                setFileDone(sentence);
              }}
            />
            <button type="button" onClick={() => request({ kind: 'new' })}>
              New workflow
            </button>
          </div>
        </div>
        {draft.name !== '' && !nameCheck.success && <p className="warn-text small">{nameCheck.error.issues[0]?.message}</p>}
        {saved && !draft.dirty && (
          <p role="status" className="ok-text">
            {saved}
          </p>
        )}
        {fileDone && (
          <p role="status" className="ok-text">
            {fileDone}
          </p>
        )}
        {openError && (
          <p role="alert" className="failure">
            {openError}
          </p>
        )}
        <FailureText error={save.error} prefix="Saving failed:" />
        <FailureText error={summaries.error} />
      </section>
      {pending && (
        <DiscardGuard
          action={pending.kind === 'new' ? 'start a new workflow' : `open "${pending.name}"`}
          draftName={draft.name}
          onSave={nameCheck.success ? () => saveDraft(() => carryOut(pending)) : undefined}
          saveBlocked="Give the workflow a valid name above to save it; or discard the changes."
          onDiscard={() => carryOut(pending)}
          onCancel={() => {
            setPending(undefined);
            setChoice(undefined);
          }}
        />
      )}
      {draft.removed && (
        <p role="status" className="panel small">
          Removed {draft.removed.node.id}.{' '}
          <button type="button" className="link" onClick={draft.undoRemove} data-undo-remove>
            Undo remove {draft.removed.node.id}
          </button>
        </p>
      )}
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
