// One Code node: its code, validation inline, Run and its output on one side; the package
// picker, the capability grants and the capability preview on the other.

import { useId, useMemo } from 'react';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { CodeNode } from '../../../shared/protocol/workflow.ts';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { useDraftStore } from '../../state/workflow-draft.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { CapabilityPreview } from './capability-preview-view.tsx';
import { CodeTextarea } from './code-textarea.tsx';
import { GrantsEditor } from './grants-editor.tsx';
import { PackagePicker } from './package-picker.tsx';
import { RunOutput } from './run-panel.tsx';
import { validateNode } from './validate-node.ts';
import { RunInWindow } from '../../runner/run-in-window.tsx';

export function CodeNodeEditor({ node, modules, byId }: { node: CodeNode; modules: readonly ModuleSummary[]; byId: ReadonlyMap<string, ModuleSummary> }) {
  const updateNode = useDraftStore((s) => s.updateNode);
  const removeNode = useDraftStore((s) => s.removeNode);
  const run = useContractMutation('code.run', { invalidate: false });
  const issues = useMemo(() => validateNode(node.code, node.packages, byId), [node.code, node.packages, byId]);
  const headingId = useId();
  const errors = issues.filter((i) => i.severity === 'error').length;
  return (
    <article className="card node" aria-labelledby={headingId}>
      <header className="card-head">
        <h3 id={headingId}>Code node {node.id}</h3>
        <button type="button" onClick={() => removeNode(node.id)}>
          Remove node {node.id}
        </button>
      </header>
      <div className="node-grid">
        <div className="node-main">
          <CodeTextarea label={`Code of ${node.id}`} value={node.code} onChange={(code) => updateNode(node.id, (n) => ({ ...n, code }))} />
          <section aria-label={`Validation of ${node.id}`} aria-live="polite">
            {issues.length === 0 ? (
              <p className="ok-text small">No problems found.</p>
            ) : (
              <ul className="issues">
                {issues.map((issue, i) => (
                  <li key={i} className={issue.severity === 'error' ? 'issue-error' : 'issue-warning'}>
                    <strong>{issue.severity}</strong> <code className="code-tag">{issue.code}</code> {issue.message}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <div className="actions">
            <button
              type="button"
              className="primary"
              disabled={run.isPending}
              onClick={() => run.mutate({ code: node.code, packages: node.packages, ...(node.grants?.fetch?.hosts.length ? { fetchHosts: node.grants.fetch.hosts } : {}) })}
            >
              {run.isPending ? 'Running…' : `Run ${node.id}`}
            </button>
            {errors > 0 && <span className="muted small">{errors === 1 ? 'There is 1 error; the run will likely fail.' : `There are ${errors} errors; the run will likely fail.`}</span>}
          </div>
          <FailureText error={run.error} prefix="The run could not start:" />
          {run.data && <RunOutput run={run.data} />}
          <RunInWindow nodeId={node.id} request={{ code: node.code, packages: node.packages, ...(node.grants?.fetch?.hosts.length ? { fetchHosts: node.grants.fetch.hosts } : {}) }} />
        </div>
        <div className="node-side">
          <PackagePicker nodeId={node.id} modules={modules} byId={byId} packages={node.packages} onChange={(packages) => updateNode(node.id, (n) => ({ ...n, packages }))} />
          <CapabilityPreview packages={node.packages} byId={byId} grants={node.grants} />
          <GrantsEditor
            nodeId={node.id}
            grants={node.grants}
            onChange={(grants) =>
              updateNode(node.id, (n) => {
                const { grants: _old, ...rest } = n;
                return grants ? { ...rest, grants } : rest;
              })
            }
          />
        </div>
      </div>
    </article>
  );
}
