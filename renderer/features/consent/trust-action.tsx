// "Trust and rebuild": the only way a pack's install scripts or host code ever run. The button
// opens a dialog that first asks main for the literal scripts on disk (packs.trustDryRun), then
// needs an explicit confirmation before calling packs.trust (or packs.rebuild for a pack already
// trusted). An integrity mismatch is reported as exactly that, with what to do.

import { useState } from 'react';
import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { INTEGRITY_MISMATCH_HELP, NEEDS_TRUST_CONSENT, trustConfirmation } from './consent-text.ts';
import { ScriptsList } from './scripts-list.tsx';

export function TrustAction({ pack }: { pack: Pick<InstalledPack, 'name' | 'version' | 'trusted' | 'status'> }) {
  const [open, setOpen] = useState(false);
  const rebuildOnly = pack.trusted;
  const trust = useContractMutation('packs.trust');
  const rebuild = useContractMutation('packs.rebuild');
  const mutation = rebuildOnly ? rebuild : trust;
  const label = rebuildOnly ? 'Rebuild…' : 'Trust and rebuild…';
  const integrity = mutation.error?.failure.code === 'integrity-mismatch';
  return (
    <>
      <button type="button" className={rebuildOnly ? '' : 'primary'} onClick={() => { mutation.reset(); setOpen(true); }}>
        {label}
      </button>
      {mutation.isSuccess && !open && <p role="status" className="ok-text">{pack.name} is trusted and its scripts ran: it is {mutation.data.status === 'active' ? 'active' : mutation.data.status}.</p>}
      {mutation.isError && !open && (
        <div role="alert" className="failure">
          <p>
            {integrity ? 'Integrity mismatch: ' : ''}
            {mutation.error.failure.message} <code className="code-tag">{mutation.error.failure.code}</code>
          </p>
          {integrity && <p>{INTEGRITY_MISMATCH_HELP}</p>}
        </div>
      )}
      {open && (
        <TrustDialog
          pack={pack}
          rebuildOnly={rebuildOnly}
          pending={mutation.isPending}
          onCancel={() => setOpen(false)}
          onConfirm={() => {
            mutation.mutate({ name: pack.name, operationId: newOperationId(rebuildOnly ? 'rebuild' : 'trust') }, { onSettled: () => setOpen(false) });
          }}
        />
      )}
    </>
  );
}

function TrustDialog(props: { pack: Pick<InstalledPack, 'name' | 'version'>; rebuildOnly: boolean; pending: boolean; onCancel: () => void; onConfirm: () => void }) {
  const plan = useContractQuery('packs.trustDryRun', { name: props.pack.name });
  const scripts = plan.data?.scripts ?? [];
  return (
    <Dialog
      title={props.rebuildOnly ? `Rebuild ${props.pack.name}?` : `Trust ${props.pack.name}?`}
      onClose={props.onCancel}
      actions={
        <>
          <button type="button" onClick={props.onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" className="danger" disabled={!plan.isSuccess || props.pending} onClick={props.onConfirm}>
            {props.pending ? 'Running scripts…' : props.rebuildOnly ? 'Run scripts again' : 'Trust and run scripts'}
          </button>
        </>
      }
    >
      {!props.rebuildOnly && <p>{NEEDS_TRUST_CONSENT}</p>}
      {plan.isPending && <p>Reading the scripts from the installed files…</p>}
      <FailureText error={plan.error} />
      {plan.isSuccess && (
        <>
          <p className="muted">
            {plan.data.name}@{plan.data.version} · integrity <code className="digest">{plan.data.integrity.slice(0, 24)}…</code>
          </p>
          <ScriptsList scripts={scripts} />
          <p>
            <strong>{trustConfirmation(plan.data.name, plan.data.version, scripts.length)}</strong>
          </p>
        </>
      )}
    </Dialog>
  );
}
