// The node's capability grants: fetch hosts, workspace, secret names. They are saved with the
// workflow (the format `sandbox-packs run` reads), and a run from the app uses all of them: it
// names the node's secrets and its workflow, and main resolves the values from the secret store and
// the folder from the workflow's workspace setting (the page never supplies either). The folder is
// chosen here per workflow (a full path, checked by main; in the desktop window also with the
// system's folder picker, opened by main) or left at its default under the data directory; each
// granted secret says whether a value is saved for it.

import { useId, useState, type FormEvent } from 'react';
import type { RequestOf } from '../../../shared/contract/methods.ts';
import { WorkflowNameSchema } from '../../../shared/contract/schemas.ts';
import { SecretNameSchema } from '../../../shared/contract/secret-schemas.ts';
import type { WorkflowGrants } from '../../../shared/protocol/workflow.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { useDraftStore } from '../../state/workflow-draft.ts';
import { useUiStore } from '../../state/ui-store.ts';
import { FailureText } from '../../ui/failure-text.tsx';

const splitList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export function normalizeGrants(hosts: string[], workspace: boolean, secrets: string[]): WorkflowGrants | undefined {
  const grants: WorkflowGrants = {};
  if (hosts.length > 0) grants.fetch = { hosts };
  if (workspace) grants.workspace = true;
  if (secrets.length > 0) grants.secrets = secrets;
  return Object.keys(grants).length > 0 ? grants : undefined;
}

/**
 * What a run names of the node's grants beyond fetch: its secrets, and its workflow for the
 * workspace (only when the workflow has a valid name; main refuses the workspace call otherwise).
 */
export function nodeGrantsOf(grants: WorkflowGrants | undefined, workflowName: string): { nodeGrants?: RequestOf<'code.run'>['nodeGrants'] } {
  const secrets = (grants?.secrets ?? []).filter((name) => SecretNameSchema.safeParse(name).success);
  const workspace = grants?.workspace === true && WorkflowNameSchema.safeParse(workflowName).success;
  if (secrets.length === 0 && !workspace) return {};
  return { nodeGrants: { ...(secrets.length ? { secrets } : {}), ...(workspace ? { workspace: { workflow: workflowName } } : {}) } };
}

export function GrantsEditor({
  nodeId,
  grants,
  onChange,
}: {
  nodeId: string;
  grants: WorkflowGrants | undefined;
  onChange: (next: WorkflowGrants | undefined) => void;
}) {
  const id = useId();
  const workflowName = useDraftStore((s) => s.name);
  const [hostsText, setHostsText] = useState((grants?.fetch?.hosts ?? []).join(', '));
  const [secretsText, setSecretsText] = useState((grants?.secrets ?? []).join(', '));
  const workspace = grants?.workspace === true;
  const emit = (hosts: string, ws: boolean, secrets: string) => onChange(normalizeGrants(splitList(hosts.toLowerCase()), ws, splitList(secrets)));
  const named = WorkflowNameSchema.safeParse(workflowName).success;
  return (
    <fieldset className="grants">
      <legend>Capabilities granted to {nodeId}</legend>
      <label htmlFor={`${id}-hosts`}>Fetch hosts (comma-separated)</label>
      <input
        id={`${id}-hosts`}
        value={hostsText}
        placeholder="api.example.com, *.example.org"
        onChange={(e) => {
          setHostsText(e.target.value);
          emit(e.target.value, workspace, secretsText);
        }}
      />
      <div className="check">
        <input id={`${id}-ws`} type="checkbox" checked={workspace} onChange={(e) => emit(hostsText, e.target.checked, secretsText)} />
        <label htmlFor={`${id}-ws`}>Workspace files</label>
      </div>
      {workspace &&
        (named ? (
          <WorkspaceFolderField workflow={workflowName} />
        ) : (
          <p className="warn-text small">Name the workflow above to give it a workspace folder; until then a run is refused the workspace.</p>
        ))}
      <label htmlFor={`${id}-secrets`}>Secret names (comma-separated)</label>
      <input
        id={`${id}-secrets`}
        value={secretsText}
        placeholder="API_TOKEN"
        onChange={(e) => {
          setSecretsText(e.target.value);
          emit(hostsText, workspace, e.target.value);
        }}
      />
      {(grants?.secrets?.length ?? 0) > 0 && <SecretStates names={grants?.secrets ?? []} />}
      <p className="muted small">A run uses these grants, in the app and when the saved workflow runs from the command line alike.</p>
    </fieldset>
  );
}

/** Whether each granted secret has a value saved (names only: no value ever reaches this page). */
function SecretStates({ names }: { names: readonly string[] }) {
  const list = useContractQuery('secrets.list', {});
  const setView = useUiStore((s) => s.setView);
  if (!list.data) return <FailureText error={list.error} />;
  const saved = new Set(list.data.names);
  const missing = names.filter((name) => !saved.has(name));
  return (
    <ul className="secret-states small" aria-label="Granted secrets">
      {names.map((name) => (
        <li key={name}>
          <code>{name}</code> {saved.has(name) ? <span className="ok-text">saved ••••••••</span> : <span className="warn-text">no value saved</span>}
        </li>
      ))}
      {missing.length > 0 && (
        <li>
          <button type="button" className="link" onClick={() => setView('secrets')}>
            Add {missing.join(', ')} on the Secrets screen
          </button>
        </li>
      )}
    </ul>
  );
}

/** The workflow's workspace folder: its default under the data directory, or one the user chose by its full path. */
function WorkspaceFolderField({ workflow }: { workflow: string }) {
  const folder = useContractQuery('workspaces.get', { workflow });
  const choose = useContractMutation('workspaces.set');
  const pick = useContractMutation('workspaces.pick');
  const [text, setText] = useState('');
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === '') return;
    choose.mutate({ workflow, path: text.trim() }, { onSuccess: () => setText('') });
  };
  return (
    <div className="workspace-folder" aria-label={`Workspace folder of ${workflow}`} role="group">
      {folder.data && (
        <p className="small">
          Folder: <code className="path">{folder.data.path}</code>{' '}
          <span className="muted">
            {folder.data.isDefault ? (folder.data.exists ? '(the default)' : '(the default; made on the first run)') : '(chosen by you)'}
          </span>
          {!folder.data.isDefault && !folder.data.exists && <span className="warn-text"> This folder no longer exists.</span>}
        </p>
      )}
      <FailureText error={folder.error} />
      <form className="row" onSubmit={submit}>
        <label htmlFor={`${id}-dir`}>Use another folder</label>
        <input id={`${id}-dir`} value={text} placeholder="/full/path/to/folder" onChange={(e) => setText(e.target.value)} />
        <button type="submit" disabled={text.trim() === '' || choose.isPending}>
          Use this folder
        </button>
        {folder.data?.canPick && (
          <button type="button" disabled={pick.isPending} onClick={() => pick.mutate({ workflow })}>
            Choose folder…
          </button>
        )}
        {folder.data && !folder.data.isDefault && (
          <button type="button" disabled={choose.isPending} onClick={() => choose.mutate({ workflow, path: null })}>
            Back to the default folder
          </button>
        )}
      </form>
      <FailureText error={choose.error} prefix="The folder was not changed:" />
      <FailureText error={pick.error} prefix="The folder was not changed:" />
    </div>
  );
}
