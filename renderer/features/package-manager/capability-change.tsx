// The part of the update dialog that says, before anything changes, what the new version can do
// outside the sandbox that this one cannot (host code, install scripts), that it will wait for
// the user's trust — so the pack goes inactive — and which saved Code nodes stop working then.
// Keeping the installed version is the dialog's Cancel, named as such.

import type { InstalledPack, UpdateCheck } from '../../../shared/contract/pack-schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { affectedNodes } from './affected-nodes.ts';
import type { CapabilityChange as Change } from './update-breakage.ts';
import { useSavedWorkflows } from './use-saved-workflows.ts';

/** What stops until the new version is trusted: nothing more for a pack that is inactive already. */
function until(pack: InstalledPack): string {
  if (pack.status !== 'active') return '';
  return pack.installMode === 'register' ? ': its host code stops running until then' : ': its sandbox modules stop working until then';
}

export function CapabilityChange({ pack, check, change }: { pack: InstalledPack; check: UpdateCheck; change: Change }) {
  const saved = useSavedWorkflows();
  const version = check.latest ?? 'the new version';
  const stopping = affectedNodes(pack.name, saved.workflows);
  return (
    <div className="failure" role="group" aria-label="What the update changes outside the sandbox">
      {change.gains.length > 0 && (
        <>
          <p>
            <strong>
              {displayText(version)} can do more than {displayText(pack.version)}:
            </strong>
          </p>
          <ul aria-label="What the new version adds">
            {change.gains.map((g) => (
              <li key={g}>{displayText(g)}</li>
            ))}
          </ul>
        </>
      )}
      {change.inactiveAfter && (
        <>
          <p>{displayText(`After the update, ${pack.name} is inactive until you trust ${version}${until(pack)}.`)}</p>
          {saved.pending ? (
            <p>Looking for saved nodes that use it…</p>
          ) : saved.error ? (
            <FailureText error={saved.error} prefix="The saved workflows could not be read:" />
          ) : stopping.length === 0 ? (
            <p>No saved workflow uses it.</p>
          ) : (
            <ul aria-label="Nodes that stop working">
              {stopping.map((a) => (
                <li key={`${a.workflow}/${a.nodeId}`}>
                  Workflow <strong>{displayText(a.workflow)}</strong>, node <strong>{displayText(a.nodeId)}</strong> stops working: uses{' '}
                  {a.specifiers.map((s) => displayText(s)).join(', ')}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <p>To change nothing, keep {displayText(pack.version)}.</p>
    </div>
  );
}
