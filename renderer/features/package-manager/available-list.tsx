// The Available tab: the registry index, searchable. Installing from here goes through the same
// install call (and result) as the spec field.

import { useDeferredValue, useId, useState } from 'react';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Chip } from '../../ui/chip.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

export function AvailableList() {
  const [term, setTerm] = useState('');
  const deferred = useDeferredValue(term.trim());
  const search = useContractQuery('packs.search', { term: deferred });
  const installed = useContractQuery('packs.list', {});
  const install = useContractMutation('packs.install');
  const openDetails = useUiStore((s) => s.openDetails);
  const id = useId();
  const have = new Set((installed.data?.packs ?? []).map((p) => p.name));
  return (
    <div>
      <label htmlFor={id}>Search the registry index</label>
      <input id={id} type="search" value={term} onChange={(e) => setTerm(e.target.value)} placeholder="yaml, csv, geo…" />
      <FailureText error={search.error} />
      <FailureText error={install.error} prefix="The install failed:" />
      {install.isSuccess && (
        <p role="status" className="ok-text">
          Installed {displayText(install.data.name)}@{displayText(install.data.version)}: {install.data.status === 'active' ? 'active' : 'needs your trust (see Installed)'}.
        </p>
      )}
      {search.isSuccess && search.data.hits.length === 0 && <p className="empty">No pack in the index matches "{deferred}".</p>}
      <ul className="hits">
        {(search.data?.hits ?? []).map((hit) => (
          <li key={hit.name} className="card">
            <div className="card-head">
              <h3>
                {displayText(hit.name)} <span className="version">{displayText(hit.version)}</span>
              </h3>
              <div className="chips">{hit.recommended && <Chip tone="good">recommended</Chip>}</div>
            </div>
            <p>{displayText(hit.description)}</p>
            <p className="small">
              Modules: {hit.sandboxModules.map((s) => <code key={s}>{displayText(s)} </code>)}
            </p>
            <div className="actions">
              {have.has(hit.name) ? (
                <button type="button" onClick={() => openDetails(hit.name)}>
                  Installed — details
                </button>
              ) : (
                <button type="button" className="primary" disabled={install.isPending} onClick={() => install.mutate({ spec: hit.name, operationId: newOperationId('install') })}>
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
