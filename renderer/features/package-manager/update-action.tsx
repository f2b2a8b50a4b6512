// Update: before acting, the affected Code nodes and the version change (current → the target the
// user names, or the registry's latest); after, the digest change of every module, since a new
// version re-stamps nothing by itself — saved nodes will show drift until re-pinned.

import { useId, useState } from 'react';
import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { AffectedList } from './affected-list.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';

interface DigestChange {
  readonly specifier: string;
  readonly before: string | undefined;
  readonly after: string | undefined;
}

function digestChanges(before: readonly ModuleSummary[], after: readonly ModuleSummary[]): DigestChange[] {
  const specifiers = [...new Set([...before, ...after].map((m) => m.specifier))].sort();
  const find = (list: readonly ModuleSummary[], s: string) => list.find((m) => m.specifier === s)?.digest;
  return specifiers.map((specifier) => ({ specifier, before: find(before, specifier), after: find(after, specifier) }));
}

const short = (digest: string | undefined) => (digest === undefined ? 'not loaded' : `${digest.slice(0, 12)}…`);

export function UpdateAction({ pack, latest }: { pack: InstalledPack; latest?: string | undefined }) {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState(latest ?? '');
  const [before, setBefore] = useState<ModuleSummary[]>([]);
  const [doneAt, setDoneAt] = useState(0);
  const summaries = useContractQuery('catalog.summaries', {});
  const update = useContractMutation('packs.update');
  const targetId = useId();
  const ownModules = (summaries.data?.modules ?? []).filter((m) => m.packName === pack.name);
  // Digests after the update only from a catalog read that arrived after it finished.
  const fresh = summaries.dataUpdatedAt > doneAt;
  const changes = update.isSuccess && fresh ? digestChanges(before, ownModules) : [];
  return (
    <>
      <button type="button" onClick={() => { update.reset(); setOpen(true); }}>
        Update…
      </button>
      {!open && <FailureText error={update.error} />}
      {!open && update.isSuccess && (
        <div role="status" className="result">
          <p>
            Updated {displayText(pack.name)}: {displayText(before[0]?.packVersion ?? 'previous')} → {displayText(update.data.version)} ({update.data.status === 'active' ? 'active' : 'needs your trust'}).
          </p>
          {!fresh && <p className="muted small">Reading the new module digests…</p>}
          {fresh && update.data.status !== 'active' && <p className="muted small">The new version's modules load once you trust it, so their digests show then.</p>}
          <ul aria-label="Digest changes">
            {changes.map((c) => (
              <li key={c.specifier}>
                <code>{displayText(c.specifier)}</code>: {c.before === c.after ? `unchanged (${short(c.after)})` : `${short(c.before)} → ${short(c.after)}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {open && (
        <Dialog
          title={`Update ${pack.name}?`}
          onClose={() => setOpen(false)}
          actions={
            <>
              <button type="button" onClick={() => setOpen(false)} data-autofocus>
                Cancel
              </button>
              <button
                type="button"
                className="primary"
                disabled={update.isPending}
                onClick={() => {
                  setBefore(ownModules);
                  const to = target.trim();
                  update.mutate({ name: pack.name, operationId: newOperationId('update'), ...(to ? { to } : {}) }, { onSettled: () => setOpen(false), onSuccess: () => {
                    setDoneAt(Date.now());
                    void summaries.refetch();
                  } });
                }}
              >
                {update.isPending ? 'Updating…' : 'Update'}
              </button>
            </>
          }
        >
          <p>
            Version: <strong>{displayText(pack.version)}</strong> → <strong>{target.trim() || 'latest in the registry'}</strong>
          </p>
          <label htmlFor={targetId}>Target version or tag (empty: latest)</label>
          <input id={targetId} value={target} onChange={(e) => setTarget(e.target.value)} placeholder="latest" />
          <p className="muted">Current module digests (the update is classified again like a fresh install; new digests are shown after it):</p>
          <ul>
            {ownModules.map((m) => (
              <li key={m.specifier}>
                <code>{displayText(m.specifier)}</code> {short(m.digest)}
              </li>
            ))}
          </ul>
          <AffectedList packName={pack.name} />
        </Dialog>
      )}
    </>
  );
}
