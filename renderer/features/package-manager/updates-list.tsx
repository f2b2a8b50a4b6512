// The Updates tab: installed packs against the versions the registry index knows. A pack the
// index does not list can still be updated to the registry's latest from its card.

import { useContractQuery } from '../../api/client-context.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { UpdateAction } from './update-action.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';

function newer(a: string, b: string): boolean {
  const pa = a.split(/[.+-]/).map((x) => Number.parseInt(x, 10));
  const pb = b.split(/[.+-]/).map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < 3; i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (Number.isNaN(x) || Number.isNaN(y)) return a !== b;
    if (x !== y) return x > y;
  }
  return false;
}

export function UpdatesList() {
  const packs = useContractQuery('packs.list', {});
  const index = useContractQuery('packs.search', { term: '' });
  if (packs.isPending) return <p>Loading…</p>;
  if (packs.isError) return <FailureText error={packs.error} />;
  const known = new Map((index.data?.hits ?? []).map((h) => [h.name, h.version]));
  const rows = packs.data.packs.map((pack) => ({ pack, latest: known.get(pack.name) }));
  const withUpdate = rows.filter((r) => r.latest !== undefined && newer(r.latest, r.pack.version));
  return (
    <div>
      <FailureText error={index.error} />
      {withUpdate.length === 0 ? <p className="empty">The registry index lists no newer version of an installed pack.</p> : null}
      <ul className="hits">
        {rows.map(({ pack, latest }) => (
          <li key={pack.name} className="card">
            <div className="card-head">
              <h3>
                {displayText(pack.name)} <span className="version">{displayText(pack.version)}</span>
              </h3>
              <span className="small">{latest === undefined ? 'not in the index' : newer(latest, pack.version) ? `${displayText(latest)} available` : 'up to date with the index'}</span>
            </div>
            <div className="actions">
              <UpdateAction pack={pack} latest={latest !== undefined && newer(latest, pack.version) ? latest : undefined} />
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
