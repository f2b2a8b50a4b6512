// The literal lifecycle scripts a trust decision covers, the pack's own and its dependencies',
// shown verbatim (as text, never interpreted) so the user decides on what would actually run.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

export function ScriptsList({ scripts }: { scripts: InstalledPack['scripts'] }) {
  if (scripts.length === 0) return <p className="muted">No install scripts: trusting it lets its host code run, nothing runs at install.</p>;
  return (
    <ul className="scripts" aria-label="Install scripts">
      {scripts.map((s, i) => (
        <li key={`${s.package}-${s.event}-${i}`}>
          <div className="script-head">
            <strong>{displayText(s.package)}</strong>@{displayText(s.version)} <span className="muted">{s.own ? 'this pack' : 'dependency'}</span> · <code>{s.event}</code>
          </div>
          <pre className="script-command">{displayText(s.command, { multiline: true })}</pre>
        </li>
      ))}
    </ul>
  );
}
