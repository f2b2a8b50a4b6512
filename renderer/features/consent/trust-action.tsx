// "Trust and run setup": the only way a pack's install scripts or host code ever run. The button
// opens a dialog that first asks main for the literal scripts on disk (packs.trustDryRun) and
// leads with what trusting lets the pack do; confirming sends the version and integrity the
// dialog showed, so main refuses (pack-changed) rather than act on an artifact nobody reviewed.
// If the plan changes while the dialog is open (an update elsewhere), the dialog says so and will
// not confirm until the new one is reviewed. Outcomes are read from the shared packs.list query,
// so every view shows the same state; a failed setup shows npm's own lines.

import { useState } from 'react';
import type { InstalledPack, TrustPlan } from '../../../shared/contract/pack-schemas.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';
import {
  INTEGRITY_MISMATCH_HELP,
  PUBLISHER_CLAIMS_NOTE,
  TRUST_CAN_LEAD,
  TRUST_CAN_RUN_OUTSIDE,
  TRUST_CHANGES_ALLOWLIST,
  trustCanRunRegister,
  trustCanRunScripts,
  trustConfirmation,
  trustState,
} from './consent-text.ts';
import { ScriptsList } from './scripts-list.tsx';

type PackRef = Pick<InstalledPack, 'name' | 'version' | 'trusted' | 'status' | 'installMode' | 'setupFailure'>;

export function TrustAction({ pack }: { pack: PackRef }) {
  const [open, setOpen] = useState(false);
  // Trusted already (setup failed or must run again): run the trusted setup again.
  const rebuildOnly = pack.trusted;
  const trust = useContractMutation('packs.trust');
  const rebuild = useContractMutation('packs.rebuild');
  const mutation = rebuildOnly ? rebuild : trust;
  const label = rebuildOnly ? `Run setup of ${pack.name} again…` : `Trust ${pack.name} and run setup…`;
  const state = trustState(pack);
  // A failure the ledger recorded is shown by SetupFailure from packs.list; only others are shown here.
  const unrecorded = mutation.isError && mutation.error.failure.message.slice(0, 4000) !== pack.setupFailure?.message;
  return (
    <>
      {state !== 'sandbox-only' && (
        <button
          type="button"
          className={rebuildOnly ? '' : 'primary'}
          onClick={() => {
            mutation.reset();
            setOpen(true);
          }}
        >
          {label}
        </button>
      )}
      {mutation.isSuccess && !open && state === 'trusted-and-built' && (
        <p role="status" className="ok-text">
          {displayText(pack.name)}@{displayText(pack.version)} is trusted and its setup ran: it is active.
        </p>
      )}
      {mutation.isError && !open && unrecorded && (
        <div role="alert" className="failure">
          <p>
            {displayText(mutation.error.failure.message, { multiline: true })} <code className="code-tag">{mutation.error.failure.code}</code>
          </p>
        </div>
      )}
      {open && (
        <TrustDialog
          pack={pack}
          rebuildOnly={rebuildOnly}
          pending={mutation.isPending}
          onCancel={() => setOpen(false)}
          onConfirm={(reviewed) => {
            mutation.mutate({ name: pack.name, operationId: newOperationId(rebuildOnly ? 'rebuild' : 'trust'), reviewed }, { onSettled: () => setOpen(false) });
          }}
        />
      )}
    </>
  );
}

/** npm's lines from the last failed setup, as recorded in the ledger (so every view shows the same). */
export function SetupFailure({ pack }: { pack: Pick<InstalledPack, 'name' | 'setupFailure'> }) {
  if (!pack.setupFailure) return null;
  const integrity = pack.setupFailure.code === 'integrity-mismatch';
  return (
    <div role="alert" className="failure" aria-label={`Setup of ${pack.name} failed`}>
      <p>
        <strong>{integrity ? 'Integrity mismatch:' : 'Setup failed.'}</strong>{' '}
        {integrity
          ? 'nothing was run; the pack is trusted but inactive.'
          : 'The pack is trusted but inactive: its install scripts did not finish. Fix the cause below, then run setup again.'}{' '}
        <code className="code-tag">{pack.setupFailure.code}</code>
      </p>
      <pre className="npm-lines">{displayText(pack.setupFailure.message, { multiline: true })}</pre>
      {integrity && <p>{INTEGRITY_MISMATCH_HELP}</p>}
    </div>
  );
}

function samePlan(a: TrustPlan, b: TrustPlan): boolean {
  return a.version === b.version && a.integrity === b.integrity;
}

function TrustDialog(props: {
  pack: PackRef;
  rebuildOnly: boolean;
  pending: boolean;
  onCancel: () => void;
  onConfirm: (reviewed: { version: string; integrity: string }) => void;
}) {
  const plan = useContractQuery('packs.trustDryRun', { name: props.pack.name });
  // The plan the person is reading; a later, different plan does not silently replace it.
  const [shown, setShown] = useState<TrustPlan | undefined>(undefined);
  const current = plan.data;
  if (current !== undefined && shown === undefined) setShown(current);
  const changed = shown !== undefined && current !== undefined && !samePlan(shown, current);
  const view = shown ?? current;
  const scripts = view?.scripts ?? [];
  return (
    <Dialog
      title={props.rebuildOnly ? `Run the setup of ${props.pack.name} again?` : `Trust ${props.pack.name}?`}
      onClose={props.onCancel}
      actions={
        <>
          <button type="button" onClick={props.onCancel} data-autofocus>
            Cancel
          </button>
          {changed && (
            <button type="button" onClick={() => setShown(current)}>
              Review {displayText(current.version)} instead
            </button>
          )}
          <button
            type="button"
            className="danger"
            disabled={view === undefined || changed || props.pending}
            onClick={() => view && props.onConfirm({ version: view.version, integrity: view.integrity })}
          >
            {props.pending ? 'Running setup…' : props.rebuildOnly ? 'Run setup again' : 'Trust and run setup'}
          </button>
        </>
      }
    >
      {plan.isPending && <p>Reading the scripts from the installed files…</p>}
      <FailureText error={plan.error} />
      {changed && (
        <p role="alert" className="failure">
          This pack changed while the dialog was open: {displayText(shown.name)}@{displayText(shown.version)} is no longer what is installed (
          {displayText(current.version)} is). Nothing was run. Review the new version before you decide.
        </p>
      )}
      {view !== undefined && (
        <>
          {!props.rebuildOnly && (
            <>
              <p>
                <strong>{TRUST_CAN_LEAD}</strong>
              </p>
              <ul className="trust-can" aria-label="If you trust it, it can">
                <li>{TRUST_CAN_RUN_OUTSIDE}</li>
                <li>{trustCanRunScripts(scripts.length)}</li>
                <li>{trustCanRunRegister(view.register)}</li>
                {props.pack.installMode !== 'register' && <li>{TRUST_CHANGES_ALLOWLIST}</li>}
              </ul>
            </>
          )}
          <dl className="pack-facts" aria-label="About this version">
            <dt>Version</dt>
            <dd>
              {displayText(view.name)}@{displayText(view.version)}
            </dd>
            {view.publishedAt && (
              <>
                <dt>Published</dt>
                <dd>{displayText(view.publishedAt.slice(0, 10))} (registry)</dd>
              </>
            )}
            {view.author && (
              <>
                <dt>Author</dt>
                <dd>{displayText(view.author)}</dd>
              </>
            )}
            {view.repository && (
              <>
                <dt>Repository</dt>
                <dd>{displayText(view.repository)}</dd>
              </>
            )}
            <dt>Integrity</dt>
            <dd>
              <code className="digest">{view.integrity.slice(0, 24)}…</code>
            </dd>
          </dl>
          {(view.author || view.repository) && <p className="muted small">{PUBLISHER_CLAIMS_NOTE}</p>}
          {view.register && (
            <p>
              Host code entry (<code>nodetool.register</code>): <code>{displayText(view.register)}</code>
            </p>
          )}
          <ScriptsList scripts={scripts} />
          <p>
            <strong>{trustConfirmation(view.name, view.version, scripts.length)}</strong>
          </p>
        </>
      )}
    </Dialog>
  );
}
