// Shown next to the picker: what each selected module could reach with this node's grants (or,
// for an isolated module, that it can reach none of them).

import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import type { WorkflowGrants } from '../../../shared/protocol/workflow.ts';
import { capabilityPreview } from './capability-preview.ts';

export function CapabilityPreview({
  packages,
  byId,
  grants,
}: {
  packages: readonly SandboxModuleDeclaration[];
  byId: ReadonlyMap<string, ModuleSummary>;
  grants: WorkflowGrants | undefined;
}) {
  const preview = capabilityPreview(
    packages.map((d) => ({ specifier: d.specifier, kind: byId.get(d.specifier)?.kind, isolation: d.isolation })),
    grants,
  );
  return (
    <section className="preview" aria-label="Capability preview">
      <h4>What the selected modules can reach</h4>
      {preview.length === 0 ? (
        <p className="muted small">No modules selected: the code runs with the node's grants and nothing imported.</p>
      ) : (
        <ul>
          {preview.map((line) => (
            <li key={line.specifier}>
              <code>{line.specifier}</code>
              <ul>
                {line.reach.map((r) => (
                  <li key={r} className="small">
                    {r}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
