// Agent settings: the CodeAct session package allowlist (default: the modules of packs trusted for
// agents only, per the spec's trust model and shared/contract/pack-state.ts) with a preview of the package lines the prompt would
// advertise, and the registry packs are installed from.

import { useEffect, useId, useState, type FormEvent } from 'react';
import { useContractQuery } from '../../api/client-context.tsx';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { effectiveAllowlist, promptLines } from './prompt-lines.ts';
import { packTrustText } from './pack-trust-text.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

export function AgentSettings() {
  const settings = useContractQuery('settings.get', {});
  const packs = useContractQuery('packs.list', {});
  const summaries = useContractQuery('catalog.summaries', {});
  const setAllowlist = useContractMutation('settings.setSessionAllowlist');
  const setRegistry = useContractMutation('settings.setRegistry');
  const [registry, setRegistryText] = useState('');
  const [chosen, setChosen] = useState<readonly string[] | undefined>(undefined);
  const id = useId();
  useEffect(() => {
    if (settings.data) setRegistryText(settings.data.registry);
  }, [settings.data]);

  if (settings.isPending || packs.isPending || summaries.isPending) return <p>Loading settings…</p>;
  if (settings.isError) return <FailureText error={settings.error} />;
  const modules = summaries.data?.modules ?? [];
  const allow = effectiveAllowlist(settings.data.sessionAllowlist, packs.data?.packs ?? [], modules);
  const lines = promptLines(allow.specifiers, modules);
  const ready = modules.filter((m) => m.status === 'ready');
  // While a change is on its way, show it: set in the click's own render (the mutation's state
  // reaches React a tick later, and a controlled checkbox would bounce back meanwhile) and kept
  // until main has answered and the settings are read again.
  const shown = chosen ?? allow.specifiers;
  const toggle = (specifier: string, on: boolean) => {
    const next = on ? [...new Set([...shown, specifier])] : shown.filter((s) => s !== specifier);
    setChosen(next);
    setAllowlist.mutate({ sessionAllowlist: next }, { onSettled: () => setChosen(undefined) });
  };
  const saveRegistry = (event: FormEvent) => {
    event.preventDefault();
    setRegistry.mutate({ registry: registry.trim() });
  };

  return (
    <div className="split-even">
      <section className="panel" aria-labelledby={`${id}-allow`}>
        <h2 id={`${id}-allow`}>Agent session allowlist (CodeAct)</h2>
        <p>
          An agent's code may import only the modules allowed here, and its prompt advertises only these.{' '}
          {allow.isDefault
            ? 'You have not chosen: the default allows the modules of packs trusted for agents (see Packages), and nothing else.'
            : 'This is your own list.'}
        </p>
        {ready.length === 0 ? (
          <p className="muted">No ready modules installed.</p>
        ) : (
          <ul className="picker-list">
            {ready.map((m) => {
              const cid = `${id}-${m.specifier}`;
              return (
                <li key={m.specifier} className="pick">
                  <div className="pick-row">
                    <input
                      type="checkbox"
                      id={cid}
                      checked={shown.includes(m.specifier)}
                      disabled={setAllowlist.isPending}
                      onChange={(e) => toggle(m.specifier, e.target.checked)}
                    />
                    <label htmlFor={cid}>
                      <code>{m.specifier}</code>
                    </label>
                    <span className="muted small">{packTrustText(packs.data?.packs ?? [], m.packName)}</span>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
        {!allow.isDefault && (
          <button type="button" onClick={() => setAllowlist.mutate({ sessionAllowlist: [] })}>
            Back to the default (trusted packs only)
          </button>
        )}
        <FailureText error={setAllowlist.error} />
      </section>
      <section className="panel" aria-labelledby={`${id}-prompt`}>
        <h2 id={`${id}-prompt`}>Prompt preview</h2>
        <p className="muted small">The package lines an agent's prompt would carry: one line per allowed module, derived from manifest fields only.</p>
        {lines.length === 0 ? (
          <p className="empty">No package lines: the agent would be told of no packages.</p>
        ) : (
          <pre className="prompt-lines" aria-label="Prompt package lines">
            {displayText(lines.join('\n'), { multiline: true })}
          </pre>
        )}
        <h2>Registry</h2>
        <form onSubmit={saveRegistry}>
          <label htmlFor={`${id}-reg`}>Registry URL packs are installed from</label>
          <div className="row">
            <input id={`${id}-reg`} value={registry} onChange={(e) => setRegistryText(e.target.value)} />
            <button type="submit" disabled={setRegistry.isPending}>
              Save registry
            </button>
          </div>
          {setRegistry.isSuccess && (
            <p role="status" className="ok-text small">
              Registry saved.
            </p>
          )}
          <FailureText error={setRegistry.error} />
        </form>
      </section>
    </div>
  );
}
