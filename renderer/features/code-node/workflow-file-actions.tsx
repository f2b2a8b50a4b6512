// Rename and Delete for the saved workflow picked in the Saved select (workflows.rename and
// workflows.delete). Rename refuses a name another saved workflow has (here, and again in main,
// which answers name-taken); Delete asks first. Nothing in the editor is lost either way: a
// renamed open workflow keeps its unsaved edits under the new name, and a deleted open one stays
// in the editor as unsaved changes, so saving it again brings it back.

import { useId, useState, type FormEvent } from 'react';
import { WorkflowNameSchema } from '../../../shared/contract/schemas.ts';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { useDraftStore } from '../../state/workflow-draft.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { FailureText } from '../../ui/failure-text.tsx';

export interface WorkflowFileActionsProps {
  /** The saved workflow picked in the select ('' for none). */
  readonly picked: string;
  /** The saved workflow the editor shows ('' for a new one). */
  readonly current: string;
  readonly savedNames: readonly string[];
  /** Told the saved workflow the editor shows is now named `to` ('' after a delete). */
  readonly onCurrentChanged: (to: string) => void;
  /** Told the action is done, with the sentence to show. */
  readonly onDone: (sentence: string) => void;
}

type Asking = { readonly kind: 'rename'; readonly name: string } | { readonly kind: 'delete'; readonly name: string };

export function WorkflowFileActions({ picked, current, savedNames, onCurrentChanged, onDone }: WorkflowFileActionsProps) {
  const [asking, setAsking] = useState<Asking | undefined>(undefined);
  return (
    <>
      <button type="button" onClick={() => setAsking({ kind: 'rename', name: picked })} disabled={picked === ''}>
        Rename…
      </button>
      <button type="button" onClick={() => setAsking({ kind: 'delete', name: picked })} disabled={picked === ''}>
        Delete…
      </button>
      {asking?.kind === 'rename' && (
        <RenameDialog
          from={asking.name}
          savedNames={savedNames}
          onCancel={() => setAsking(undefined)}
          onRenamed={(to) => {
            setAsking(undefined);
            if (asking.name === current) {
              // The draft follows its file; its own unsaved edits (and dirty state) stay as they are.
              const draft = useDraftStore.getState();
              if (draft.name === asking.name) useDraftStore.setState({ name: to });
              onCurrentChanged(to);
            }
            onDone(`Renamed "${asking.name}" to "${to}".`);
          }}
        />
      )}
      {asking?.kind === 'delete' && (
        <DeleteDialog
          name={asking.name}
          open={asking.name === current}
          onCancel={() => setAsking(undefined)}
          onDeleted={() => {
            setAsking(undefined);
            if (asking.name === current) {
              // Its contents stay in the editor, now unsaved: saving again restores the file.
              const draft = useDraftStore.getState();
              draft.setName(draft.name);
              onCurrentChanged('');
            }
            onDone(`Deleted "${asking.name}".`);
          }}
        />
      )}
    </>
  );
}

function RenameDialog({
  from,
  savedNames,
  onCancel,
  onRenamed,
}: {
  from: string;
  savedNames: readonly string[];
  onCancel: () => void;
  onRenamed: (to: string) => void;
}) {
  const id = useId();
  const [to, setTo] = useState(from);
  const rename = useContractMutation('workflows.rename');
  const check = WorkflowNameSchema.safeParse(to);
  const taken = to !== from && savedNames.includes(to);
  const problem = !check.success ? check.error.issues[0]?.message : taken ? `A workflow named "${to}" is saved already; choose another name.` : undefined;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (problem !== undefined || to === from) return;
    rename.mutate({ from, to }, { onSuccess: (value) => onRenamed(value.name) });
  };
  return (
    <Dialog
      title={`Rename "${from}"`}
      onClose={onCancel}
      actions={
        <>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="primary" onClick={() => submit()} disabled={problem !== undefined || to === from || rename.isPending}>
            Rename
          </button>
        </>
      }
    >
      <form className="row" onSubmit={submit}>
        <label htmlFor={`${id}-to`}>New name</label>
        <input
          id={`${id}-to`}
          value={to}
          onChange={(e) => setTo(e.target.value)}
          aria-invalid={problem !== undefined}
          aria-describedby={`${id}-problem`}
          data-autofocus
        />
      </form>
      <p id={`${id}-problem`} className="warn-text small" role={problem ? 'alert' : undefined}>
        {problem ?? ''}
      </p>
      <FailureText error={rename.error} prefix="Renaming failed:" />
    </Dialog>
  );
}

function DeleteDialog({ name, open, onCancel, onDeleted }: { name: string; open: boolean; onCancel: () => void; onDeleted: () => void }) {
  const remove = useContractMutation('workflows.delete');
  return (
    <Dialog
      title={`Delete "${name}"?`}
      onClose={onCancel}
      actions={
        <>
          <button type="button" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" className="danger" onClick={() => remove.mutate({ name }, { onSuccess: onDeleted })} disabled={remove.isPending}>
            Delete workflow
          </button>
        </>
      }
    >
      <p>The saved workflow &quot;{name}&quot; is removed from the data directory, with its backup. This cannot be undone.</p>
      {open && <p className="small">It is open in the editor: its contents stay there as unsaved changes, so you can still save them under a name.</p>}
      <FailureText error={remove.error} prefix="Deleting failed:" />
    </Dialog>
  );
}
