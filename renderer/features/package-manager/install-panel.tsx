// Install: a spec field, the stages as they happen, and a result that says what happened — a
// sandbox-only pack is active, with the consent sentence; a pack that needs trust shows the
// literal scripts and the "Trust and run setup" action. A failure is shown only once the call has
// answered, never from progress alone. After the answer, the pack's state is read from the shared
// packs.list query (not the install call's answer), so trusting it here or anywhere else, or an
// update, shows at once and the panel never contradicts the cards. While it runs, the elapsed
// time and Cancel (packs.cancel) show; a cancelled install was undone by main, and says so.

import { useId, useState, type FormEvent } from 'react';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { IMPORT_CONSENT, NEEDS_TRUST_CONSENT, SANDBOX_ONLY_CONSENT } from '../consent/consent-text.ts';
import { ScriptsList } from '../consent/scripts-list.tsx';
import { SetupFailure, TrustAction } from '../consent/trust-action.tsx';
import { trustState } from '../consent/consent-text.ts';
import { progressLine, STAGE_LABEL, type Phase } from './install-progress.ts';
import { useOperationProgress } from './use-operation-progress.ts';
import { OperationClock } from './operation-clock.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

export function InstallPanel() {
  const [spec, setSpec] = useState('');
  const install = useContractMutation('packs.install');
  const cancel = useContractMutation('packs.cancel', { invalidate: false });
  const [operationId, setOperationId] = useState<string | undefined>(undefined);
  const { progress, track } = useOperationProgress();
  const openDetails = useUiStore((s) => s.openDetails);
  const specId = useId();
  const wasCancelled = install.error?.failure.code === 'install-cancelled';
  const phase: Phase | undefined = install.isPending
    ? 'running'
    : install.isSuccess
      ? 'succeeded'
      : wasCancelled
        ? 'cancelled'
        : install.isError
          ? 'failed'
          : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = spec.trim();
    if (value === '' || install.isPending) return;
    const id = newOperationId('install');
    track(id);
    setOperationId(id);
    cancel.reset();
    install.mutate({ spec: value, operationId: id });
  };

  const listed = useContractQuery('packs.list', {});
  // The installed row once the list has it; the call's own answer only until then.
  const row = listed.data?.packs.find((p) => p.name === install.data?.name);
  // A list read after the install answered that lacks the pack: it was uninstalled since.
  const goneSince = install.isSuccess && row === undefined && listed.dataUpdatedAt > install.submittedAt && !listed.isFetching;
  const pack = goneSince ? undefined : install.data && (row ?? install.data);
  const state = pack ? trustState(pack) : undefined;
  return (
    <section className="panel" aria-labelledby={`${specId}-h`}>
      <h2 id={`${specId}-h`}>Install a pack</h2>
      <form className="install-form" onSubmit={submit}>
        <label htmlFor={specId}>Package spec</label>
        <div className="row">
          <input
            id={specId}
            name="pack-spec"
            value={spec}
            onChange={(e) => setSpec(e.target.value)}
            placeholder="@scope/name, name@1.2.3 or a tarball URL"
            autoComplete="off"
            spellCheck={false}
          />
          <button type="submit" className="primary" disabled={install.isPending || spec.trim() === ''}>
            {install.isPending ? 'Installing…' : 'Install'}
          </button>
        </div>
        <p className="muted">Installs run with install scripts disabled; nothing from the pack runs until you decide.</p>
      </form>
      {phase !== undefined && (
        <div className="progress">
          <p role="status" aria-live="polite">
            {progressLine(progress, phase)}
          </p>
          <ol className="stages" aria-label="Install stages">
            {progress.stages.map((stage, i) => (
              <li key={stage} className={i === progress.stages.length - 1 && phase === 'running' ? 'stage-current' : 'stage-done'}>
                {STAGE_LABEL[stage]}
              </li>
            ))}
          </ol>
          {install.isPending && operationId !== undefined && (
            <OperationClock
              startedAt={install.submittedAt}
              waitingOnRegistry={progress.stages.at(-1) === 'fetching' || progress.stages.at(-1) === 'resolving'}
              cancelling={cancel.isPending || cancel.data?.cancelled === true}
              onCancel={() => cancel.mutate({ operationId })}
            />
          )}
        </div>
      )}
      <FailureText error={install.error} prefix={wasCancelled ? 'Install cancelled:' : 'The install failed:'} tone={wasCancelled ? 'notice' : 'failure'} />
      {goneSince && <p className="muted">{displayText(install.data.name)} was installed, and has been uninstalled since.</p>}
      {pack && (
        <div className="result" aria-label="Install result">
          {state === 'trusted-and-built' ? (
            <p className="ok-text">
              <strong>
                {displayText(pack.name)}@{displayText(pack.version)} is trusted and its setup ran
              </strong>{' '}
              — {pack.installMode}, active.
            </p>
          ) : state === 'trust-failed' ? (
            <>
              <p className="warn-text">
                <strong>
                  {displayText(pack.name)}@{displayText(pack.version)}: setup failed
                </strong>{' '}
                — trusted, but inactive.
              </p>
              <SetupFailure pack={pack} />
              <TrustAction pack={pack} />
            </>
          ) : pack.status === 'active' ? (
            <>
              <p className="ok-text">
                <strong>
                  Installed {displayText(pack.name)}@{displayText(pack.version)}
                </strong>{' '}
                — {pack.installMode}, active{pack.sourceLabel === 'unverified source' ? ', from an unverified source' : ''}.
              </p>
              <p>{SANDBOX_ONLY_CONSENT}</p>
              <p>{IMPORT_CONSENT}</p>
            </>
          ) : (
            <>
              <p className="warn-text">
                <strong>
                  {displayText(pack.name)}@{displayText(pack.version)} needs trust
                </strong>{' '}
                — {pack.installMode}. It is installed but inactive.
              </p>
              <p>{NEEDS_TRUST_CONSENT}</p>
              <ScriptsList scripts={pack.scripts} />
              <TrustAction pack={pack} />
            </>
          )}
          <button type="button" className="link" onClick={() => openDetails(pack.name)}>
            Show details of {pack.name}
          </button>
        </div>
      )}
    </section>
  );
}
