// The Updates tab: each installed pack against the latest version on the configured registry
// (packs.updates reads the registry's metadata; nothing is installed). Update is offered only
// where there is one; a pack from a tarball is offered "install a newer tarball" instead, and a
// registry that could not be asked says so for that pack, and above the list (never "no newer
// version" when nothing could be checked), with a Check again button.

import { useContractQuery } from '../../api/client-context.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { TarballUpdateNote, UpdateAction } from './update-action.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { updatesSummary } from './updates-summary.ts';

/** How many installed packs have a newer version on the registry (for the tab's label). */
export function useUpdateCount(): number | undefined {
  const checks = useContractQuery('packs.updates', {});
  return checks.data?.packs.filter((p) => p.state === 'update').length;
}

export function UpdatesList() {
  const packs = useContractQuery('packs.list', {});
  const checks = useContractQuery('packs.updates', {});
  if (packs.isPending || checks.isPending) return <p>Checking the registry for newer versions…</p>;
  if (packs.isError) return <FailureText error={packs.error} />;
  if (checks.isError) return <FailureText error={checks.error} prefix="The registry could not be checked:" />;
  const byName = new Map(checks.data.packs.map((c) => [c.name, c]));
  const summary = updatesSummary(checks.data.packs);
  return (
    <div>
      <p className={summary.checked ? 'muted' : 'failure'} role={summary.checked ? undefined : 'alert'}>
        {summary.checked ? 'Checked against' : 'Could not check'} {displayText(checks.data.registry)}: {summary.text}
      </p>
      {!summary.checked && (
        <button type="button" disabled={checks.isFetching} onClick={() => void checks.refetch()}>
          {checks.isFetching ? 'Checking again…' : 'Check again'}
        </button>
      )}
      <ul className="hits">
        {packs.data.packs.map((pack) => {
          const check = byName.get(pack.name);
          const line =
            check === undefined
              ? 'not checked'
              : check.state === 'update'
                ? `${displayText(check.latest ?? '')} available${check.publishedAt ? ` (published ${displayText(check.publishedAt.slice(0, 10))})` : ''}`
                : check.state === 'current'
                  ? 'up to date'
                  : check.state === 'tarball'
                    ? 'installed from a tarball: no registry to check'
                    : `could not be checked: ${displayText(check.message ?? '')}`;
          return (
            <li key={pack.name} className="card" aria-label={`${pack.name} ${pack.version}`}>
              <div className="card-head">
                <h3>
                  {displayText(pack.name)} <span className="version">{displayText(pack.version)}</span>
                </h3>
                <span className="small">{line}</span>
              </div>
              <div className="actions">
                <UpdateAction pack={pack} check={check} />
                {check?.state === 'tarball' && <TarballUpdateNote pack={pack} />}
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
