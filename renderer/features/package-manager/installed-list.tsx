// The Installed tab: every pack in the managed root (from the ledger) with its modules and, from
// the same packs.updates query as the Updates tab, whether a newer version exists. After an
// uninstall the card is gone, so focus moves to a visible confirmation instead of the page body.

import { useEffect, useRef } from 'react';
import { useContractQuery } from '../../api/client-context.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { USE_TRUST_ALLOWS } from '../../../shared/contract/pack-state.ts';
import { PackCard } from './pack-card.tsx';
import { useUninstallNotice } from './uninstall-notice.ts';

export function InstalledList() {
  const packs = useContractQuery('packs.list', {});
  const summaries = useContractQuery('catalog.summaries', {});
  const checks = useContractQuery('packs.updates', {});
  const removed = useUninstallNotice((s) => s.removing);
  const notice = useRef<HTMLParagraphElement>(null);
  const gone = removed !== undefined && packs.data !== undefined && !packs.data.packs.some((p) => p.name === removed);
  useEffect(() => {
    // Once the card has left the list (its button with it), put focus on the confirmation.
    if (gone) notice.current?.focus();
  }, [gone]);
  if (packs.isPending) return <p>Loading installed packs…</p>;
  if (packs.isError) return <FailureText error={packs.error} />;
  const modules = summaries.data?.modules ?? [];
  const confirmation = gone ? (
    <p ref={notice} role="status" tabIndex={-1} className="ok-text">
      Uninstalled {displayText(removed)}.
    </p>
  ) : null;
  if (packs.data.packs.length === 0)
    return (
      <>
        {confirmation}
        <p className="empty">No packs installed yet. Install one by its package spec above, or find one under Available.</p>
      </>
    );
  const byName = new Map((checks.data?.packs ?? []).map((c) => [c.name, c]));
  return (
    <div className="cards">
      {confirmation}
      <p className="muted small" role="note">
        {USE_TRUST_ALLOWS}
      </p>
      <FailureText error={summaries.error} />
      {packs.data.packs.map((pack) => (
        <PackCard key={pack.name} pack={pack} modules={modules.filter((m) => m.packName === pack.name)} update={byName.get(pack.name)} />
      ))}
    </div>
  );
}
