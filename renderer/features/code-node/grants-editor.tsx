// The node's capability grants: fetch hosts, workspace, secret names. They are saved with the
// workflow (the format `sandbox-packs run` reads). A run from the app grants fetch only: the
// contract never carries workspace paths or secret values (see shared/contract/code-methods.ts),
// and the editor says so rather than pretending otherwise.

import { useId, useState } from 'react';
import type { WorkflowGrants } from '../../../shared/protocol/workflow.ts';

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
  const [hostsText, setHostsText] = useState((grants?.fetch?.hosts ?? []).join(', '));
  const [secretsText, setSecretsText] = useState((grants?.secrets ?? []).join(', '));
  const workspace = grants?.workspace === true;
  const emit = (hosts: string, ws: boolean, secrets: string) => onChange(normalizeGrants(splitList(hosts.toLowerCase()), ws, splitList(secrets)));
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
      <p className="muted small">
        Run in the app grants fetch only; workspace and secrets apply when the workflow runs with <code>sandbox-packs run</code>.
      </p>
    </fieldset>
  );
}
