// The Available tab: packs from the bundled registry index and from the configured registry's
// search (published with the sandbox-pack keyword), searchable, each marked with where it came
// from. Registry text is shown as plain text through displayText, never as HTML. Installing from
// here goes through the same install call (and result) as the spec field. A pack the bundled index
// knows to be useless here (its only module fails admission) says why instead of offering Install.
// An installed pack says which version is installed and whether Updates offers the listed one.

import { useDeferredValue, useId, useState } from 'react';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Chip } from '../../ui/chip.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import type { InstalledPack, UpdateCheck } from '../../../shared/contract/pack-schemas.ts';
import { PROVENANCE_LABEL, provenance } from '../../../shared/contract/pack-state.ts';

const SOURCE_LABEL = { index: 'bundled index', registry: 'registry' } as const;

/**
 * What is installed beside what the listing names, so a listed version is never mistaken for an
 * update: the Updates tab's own answer for the pack decides whether one is offered.
 */
export function installedNote(pack: InstalledPack, listed: string, check: UpdateCheck | undefined): string {
  const where = PROVENANCE_LABEL[provenance(pack)];
  const head = `Installed: ${displayText(pack.version)} (${where}).`;
  if (pack.version === listed) return head;
  if (check?.state === 'update' && check.latest) return `${head} ${displayText(check.latest)} is offered under Updates.`;
  if (check === undefined) return `${head} The listing names ${displayText(listed)}.`;
  if (check.state === 'tarball')
    return `${head} The listing names ${displayText(listed)}, but a pack installed from a tarball is not updated from the registry: Updates offers nothing for it.`;
  if (check.state === 'unavailable') return `${head} The listing names ${displayText(listed)}; the registry could not be asked whether it has a newer version.`;
  return `${head} The listing names ${displayText(listed)}, but the registry's latest version is ${displayText(check.latest ?? pack.version)}, which is installed.`;
}

export function AvailableList() {
  const [term, setTerm] = useState('');
  const deferred = useDeferredValue(term.trim());
  const search = useContractQuery('packs.search', { term: deferred });
  const installed = useContractQuery('packs.list', {});
  const install = useContractMutation('packs.install');
  const openDetails = useUiStore((s) => s.openDetails);
  const id = useId();
  const checks = useContractQuery('packs.updates', {});
  const have = new Map((installed.data?.packs ?? []).map((p) => [p.name, p]));
  const checkOf = new Map((checks.data?.packs ?? []).map((c) => [c.name, c]));
  return (
    <div>
      <label htmlFor={id}>Search for packs</label>
      <input id={id} type="search" value={term} onChange={(e) => setTerm(e.target.value)} placeholder="yaml, csv, geo…" />
      <FailureText error={search.error} />
      {search.data?.note && (
        <p role="note" className="small">
          {displayText(search.data.note)}
        </p>
      )}
      <FailureText error={install.error} prefix="The install failed:" />
      {install.isSuccess && (
        <p role="status" className="ok-text">
          Installed {displayText(install.data.name)}@{displayText(install.data.version)}:{' '}
          {install.data.status === 'active' ? 'active' : 'needs your trust (see Installed)'}.
        </p>
      )}
      {search.isSuccess && search.data.hits.length === 0 && <p className="empty">No pack matches "{displayText(deferred)}".</p>}
      <ul className="hits">
        {(search.data?.hits ?? []).map((hit) => (
          <li key={hit.name} className="card">
            <div className="card-head">
              <h3>
                {displayText(hit.name)} <span className="version">{displayText(hit.version)}</span>
              </h3>
              <div className="chips">
                {hit.recommended && <Chip tone="good">recommended</Chip>}
                {hit.sources.map((source) => (
                  <Chip
                    key={source}
                    tone="info"
                    title={source === 'index' ? 'Listed in the index that ships with the app' : `Found on the registry ${search.data?.registry ?? ''}`}
                  >
                    {SOURCE_LABEL[source]}
                  </Chip>
                ))}
              </div>
            </div>
            <p>{displayText(hit.description)}</p>
            {hit.modules ? (
              <ul className="small" aria-label="Modules">
                {hit.modules.map((line) => (
                  <li key={line}>
                    <code>{displayText(line)}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="small">
                Modules: {hit.sandboxModules.length ? hit.sandboxModules.map((s) => <code key={s}>{displayText(s)} </code>) : 'not listed by the registry'}
              </p>
            )}
            {have.has(hit.name) && (
              <p className="small" role="note" aria-label={`Installed version of ${hit.name}`}>
                {installedNote(have.get(hit.name)!, hit.version, checkOf.get(hit.name))}
              </p>
            )}
            <div className="actions">
              {have.has(hit.name) ? (
                <button type="button" onClick={() => openDetails(hit.name)}>
                  Installed — details
                </button>
              ) : hit.knownSkipped ? (
                <p className="muted small" role="note" aria-label={`Why ${hit.name} cannot be installed`}>
                  Not installable yet. {displayText(hit.knownSkipped)}
                </p>
              ) : (
                <button
                  type="button"
                  className="primary"
                  disabled={install.isPending}
                  onClick={() => install.mutate({ spec: hit.name, operationId: newOperationId('install') })}
                >
                  {install.isPending && install.variables?.spec === hit.name ? 'Installing…' : `Install ${hit.name}`}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
