// The list an uninstall or update shows before it acts: which saved workflows and Code nodes
// declare the pack's specifiers.

import { FailureText } from '../../ui/failure-text.tsx';
import { affectedNodes } from './affected-nodes.ts';
import { useSavedWorkflows } from './use-saved-workflows.ts';

export function AffectedList({ packName }: { packName: string }) {
  const saved = useSavedWorkflows();
  if (saved.pending) return <p>Looking for saved workflows that use {packName}…</p>;
  if (saved.error) return <FailureText error={saved.error} prefix="The saved workflows could not be read:" />;
  const affected = affectedNodes(packName, saved.workflows);
  if (affected.length === 0) return <p>No saved workflow declares {packName}.</p>;
  return (
    <div>
      <p>
        {affected.length === 1 ? 'This Code node declares' : `These ${affected.length} Code nodes declare`} modules of {packName}:
      </p>
      <ul className="affected" aria-label="Affected Code nodes">
        {affected.map((a) => (
          <li key={`${a.workflow}/${a.nodeId}`}>
            Workflow <strong>{a.workflow}</strong>, node <strong>{a.nodeId}</strong>:{' '}
            {a.specifiers.map((s) => (
              <code key={s}>{s}</code>
            ))}
          </li>
        ))}
      </ul>
    </div>
  );
}
