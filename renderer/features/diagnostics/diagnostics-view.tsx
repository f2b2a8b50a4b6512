// Diagnostics: every discovered pack and module with its status, code and reason, every warning,
// and the installer's view of each pack (ledger status, which reflects start-up reconcile) in the
// words of shared/contract/pack-state.ts, the same as the Packages cards and `sandbox-packs list`.

import { useContractQuery } from '../../api/client-context.tsx';
import { Chip } from '../../ui/chip.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { ModuleRows } from '../package-manager/module-rows.tsx';
import type { ReconcileSummary } from '../../../shared/contract/schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { stateWords } from '../../../shared/contract/pack-state.ts';

export function DiagnosticsView() {
  const diagnostics = useContractQuery('catalog.diagnostics', {});
  const ledger = useContractQuery('packs.list', {});
  if (diagnostics.isPending) return <p>Loading diagnostics…</p>;
  if (diagnostics.isError) return <FailureText error={diagnostics.error} />;
  const rows = diagnostics.data.packs;
  const modules = rows.flatMap((r) => r.modules);
  const skipped = modules.filter((m) => m.status !== 'ready').length;
  const warnings = rows.reduce((n, r) => n + r.warnings.length, 0);
  return (
    <div>
      <section className="panel" aria-labelledby="diag-h">
        <h2 id="diag-h">Catalog</h2>
        <p>
          {rows.length} {rows.length === 1 ? 'pack' : 'packs'} discovered, {modules.length - skipped} modules ready, {skipped} skipped, {warnings}{' '}
          {warnings === 1 ? 'warning' : 'warnings'}.
        </p>
        {rows.length === 0 && <p className="empty">No pack was discovered in the install root.</p>}
        <div className="cards">
          {rows.map((row) => (
            <article key={row.name} className="card" aria-label={`Diagnostics of ${row.name}`}>
              <header className="card-head">
                <h3>
                  {displayText(row.name)} <span className="version">{displayText(row.version)}</span>
                </h3>
                <Chip tone={row.status === 'ok' ? 'good' : 'bad'}>{row.status}</Chip>
              </header>
              {row.status !== 'ok' && (
                <p className="failure">
                  {displayText(row.reason ?? '')} {row.code && <code className="code-tag">{row.code}</code>}
                </p>
              )}
              <ModuleRows modules={row.modules} />
              {row.warnings.length > 0 && (
                <ul className="issues" aria-label="Warnings">
                  {row.warnings.map((w, i) => (
                    <li key={i} className="issue-warning">
                      <code className="code-tag">{w.code}</code> {displayText(w.message)}
                    </li>
                  ))}
                </ul>
              )}
            </article>
          ))}
        </div>
      </section>
      <section className="panel" aria-labelledby="runtime-h">
        <h2 id="runtime-h">Installer runtime</h2>
        <p>
          npm {diagnostics.data.runtime.npm ?? 'missing'} (the app&apos;s own) on{' '}
          {diagnostics.data.runtime.electron
            ? `Electron ${diagnostics.data.runtime.electron}, Node ${diagnostics.data.runtime.node}`
            : `Node ${diagnostics.data.runtime.node}`}
        </p>
      </section>
      <section className="panel" aria-labelledby="reconcile-h">
        <h2 id="reconcile-h">Start-up reconcile</h2>
        <ReconcileReport report={diagnostics.data.reconcile} />
      </section>
      <section className="panel" aria-labelledby="ledger-h">
        <h2 id="ledger-h">Installer (after start-up reconcile)</h2>
        <FailureText error={ledger.error} prefix="The install ledger could not be read:" />
        {ledger.data && ledger.data.packs.length === 0 && <p className="empty">The ledger records no installed pack.</p>}
        {ledger.data && ledger.data.packs.length > 0 && (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Pack</th>
                <th scope="col">Version</th>
                <th scope="col">Mode</th>
                <th scope="col">Status</th>
                <th scope="col">Agents</th>
                <th scope="col">Source</th>
                <th scope="col">Install scripts</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.packs.map((p) => {
                const words = stateWords(p);
                return (
                  <tr key={p.name} aria-label={`Installer row of ${p.name}`}>
                    <td>{displayText(p.name)}</td>
                    <td>{displayText(p.version)}</td>
                    <td>{p.installMode}</td>
                    <td>{words.setup}</td>
                    <td>{words.use}</td>
                    <td>{words.source}</td>
                    <td>{p.scripts.length}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

/** What the installer fixed when the app started: leftovers of an interrupted install, missing packs. */
function ReconcileReport({ report }: { report: ReconcileSummary | null }) {
  if (report === null) return <p className="empty">This install root is not managed by the installer, so nothing was reconciled.</p>;
  if (!report.ok) {
    return (
      <p className="failure">
        Reconcile could not run: {displayText(report.message)} <code className="code-tag">{report.code}</code>
      </p>
    );
  }
  if (report.fixed.length === 0 && report.missing.length === 0) return <p>The install tree and the ledger agreed; nothing needed fixing.</p>;
  return (
    <ul className="issues" aria-label="Reconcile results">
      {report.fixed.map((line, i) => (
        <li key={`f${i}`}>
          <Chip tone="good">fixed</Chip> {displayText(line)}
        </li>
      ))}
      {report.missing.map((line, i) => (
        <li key={`m${i}`} className="issue-warning">
          <Chip tone="bad">missing</Chip> {displayText(line)}
        </li>
      ))}
    </ul>
  );
}
