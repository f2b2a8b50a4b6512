// The Installed tab: every pack in the managed root (from the ledger) with its modules.

import { useContractQuery } from '../../api/client-context.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { PackCard } from './pack-card.tsx';

export function InstalledList() {
  const packs = useContractQuery('packs.list', {});
  const summaries = useContractQuery('catalog.summaries', {});
  if (packs.isPending) return <p>Loading installed packs…</p>;
  if (packs.isError) return <FailureText error={packs.error} />;
  const modules = summaries.data?.modules ?? [];
  if (packs.data.packs.length === 0) return <p className="empty">No packs installed yet. Install one by its package spec above, or find one under Available.</p>;
  return (
    <div className="cards">
      <FailureText error={summaries.error} />
      {packs.data.packs.map((pack) => (
        <PackCard key={pack.name} pack={pack} modules={modules.filter((m) => m.packName === pack.name)} />
      ))}
    </div>
  );
}
