// The literal lifecycle scripts a trust decision covers, the pack's own and its dependencies',
// shown verbatim (as text, never interpreted) so the user decides on what would actually run. A
// script that downloads and runs remote code is flagged: what it runs is not what is shown.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { scriptRisks } from '../../../shared/packs/script-risk.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

export function ScriptsList({ scripts }: { scripts: InstalledPack['scripts'] }) {
  if (scripts.length === 0) return <p className="muted">No install scripts: trusting it lets its host code run, nothing runs at install.</p>;
  return (
    <ul className="scripts" aria-label="Install scripts">
      {scripts.map((s, i) => {
        const risks = scriptRisks(s.command);
        return (
          <li key={`${s.package}-${s.event}-${i}`} className={risks.length > 0 ? 'script-risky' : undefined}>
            <div className="script-head">
              <strong>{displayText(s.package)}</strong>@{displayText(s.version)} <span className="muted">{s.own ? 'this pack' : 'dependency'}</span> ·{' '}
              <code>{s.event}</code>
            </div>
            <pre className="script-command">{displayText(s.command, { multiline: true })}</pre>
            {risks.map((r) => (
              <p key={r.kind} className="warn-text" data-risk={r.kind}>
                <strong>Downloads and runs remote code:</strong> {r.reason}
              </p>
            ))}
          </li>
        );
      })}
    </ul>
  );
}
