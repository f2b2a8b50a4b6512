// One Code node: its code in the editor with the node's validation as lint marks and as a list,
// Run (or Ctrl/Cmd+Enter) with elapsed time and Stop, and its output on one side; the package
// picker, the capability grants and the capability preview on the other.

import { useCallback, useId, useMemo, useState } from 'react';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { CodeNode } from '../../../shared/protocol/workflow.ts';
import { RunInWindow } from './run-in-window.tsx';
import { useContractClient } from '../../api/client-context.tsx';
import { useDraftStore } from '../../state/workflow-draft.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { CapabilityPreview } from './capability-preview-view.tsx';
import { CodeEditor, type CatalogForCompletion, type EditorMark } from './code-editor.tsx';
import { toggleDeclaration } from './declarations.ts';
import { withImportLine } from './export-context.ts';
import { defaultMembers } from './module-members.ts';
import { GrantsEditor, nodeGrantsOf } from './grants-editor.tsx';
import { RunControls, useNodeRun } from './node-run.tsx';
import { PackagePicker } from './package-picker.tsx';
import { InstallSavedPack, packOfSpecifier } from './install-saved-pack.tsx';
import { runErrorMark, type FinishedRun } from './run-error-marks.ts';
import { useNodeValidation } from './use-node-validation.ts';

export function CodeNodeEditor({ node, modules, byId }: { node: CodeNode; modules: readonly ModuleSummary[]; byId: ReadonlyMap<string, ModuleSummary> }) {
  const updateNode = useDraftStore((s) => s.updateNode);
  const removeNode = useDraftStore((s) => s.removeNode);
  const client = useContractClient();
  const run = useNodeRun();
  const [windowRun, setWindowRun] = useState<FinishedRun | undefined>(undefined);
  const validation = useNodeValidation(node);
  const issues = useMemo(() => validation.issues ?? [], [validation.issues]);
  const headingId = useId();
  const errors = issues.filter((i) => i.severity === 'error').length;
  // One Install per missing pack, beside the first issue that names it.
  const installOffers = useMemo(() => {
    const offers = new Map<number, NonNullable<(typeof node.packages)[number]>>();
    const seen = new Set<string>();
    issues.forEach((issue, i) => {
      const declaration = issue.code === 'unknown-specifier' ? node.packages.find((d) => d.specifier === issue.specifier) : undefined;
      if (!declaration || seen.has(packOfSpecifier(declaration.specifier))) return;
      seen.add(packOfSpecifier(declaration.specifier));
      offers.set(i, declaration);
    });
    return offers;
  }, [issues, node.packages]);
  const workflowName = useDraftStore((s) => s.name);
  const request = useMemo(
    () => ({
      code: node.code,
      packages: node.packages,
      ...(node.grants?.fetch?.hosts.length ? { fetchHosts: node.grants.fetch.hosts } : {}),
      ...nodeGrantsOf(node.grants, workflowName),
    }),
    [node.code, node.packages, node.grants, workflowName],
  );
  const marks = useMemo<EditorMark[]>(
    () =>
      issues.flatMap((i) =>
        i.line === undefined
          ? []
          : [{ severity: i.severity, message: `${i.message} [${i.code}]`, line: i.line, ...(i.column !== undefined ? { column: i.column } : {}) }],
      ),
    [issues],
  );
  const runMarks = useMemo(
    () => [...runErrorMark(run.finished, node.code, 'app'), ...runErrorMark(windowRun, node.code, 'window')],
    [run.finished, windowRun, node.code],
  );
  const declare = useCallback(
    (specifier: string) =>
      updateNode(node.id, (n) =>
        n.packages.some((d) => d.specifier === specifier) ? n : { ...n, packages: toggleDeclaration(n.packages, specifier, true, byId) },
      ),
    [updateNode, node.id, byId],
  );
  const catalog = useMemo<CatalogForCompletion>(
    () => ({ modules, declared: new Set(node.packages.map((d) => d.specifier)), declare, members: (m: ModuleSummary) => defaultMembers(client, m) }),
    [modules, node.packages, declare, client],
  );

  const remove = () => {
    removeNode(node.id);
    // The button is gone with its node: focus goes to the Undo that can bring it back.
    requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-undo-remove]')?.focus());
  };

  return (
    <article className="card node" aria-labelledby={headingId}>
      <header className="card-head">
        <h3 id={headingId}>Code node {node.id}</h3>
        <button type="button" onClick={remove}>
          Remove node {node.id}
        </button>
      </header>
      <div className="node-grid">
        <div className="node-main">
          <CodeEditor
            label={`Code of ${node.id}`}
            value={node.code}
            onChange={(code) => updateNode(node.id, (n) => ({ ...n, code }))}
            onRun={() => run.start(request)}
            marks={runMarks.length ? [...marks, ...runMarks] : marks}
            catalog={catalog}
          />
          <section aria-label={`Validation of ${node.id}`} aria-live="polite">
            {validation.issues === undefined ? (
              <p className="muted small">Checking…</p>
            ) : issues.length === 0 ? (
              <p className="ok-text small">No problems found.</p>
            ) : (
              <ul className="issues">
                {issues.map((issue, i) => (
                  <li key={i} className={issue.severity === 'error' ? 'issue-error' : 'issue-warning'}>
                    <strong>{issue.severity}</strong> <code className="code-tag">{issue.code}</code>
                    {issue.line !== undefined ? ` line ${issue.line}: ` : ' '}
                    {issue.message}
                    {installOffers.has(i) && <InstallSavedPack declaration={installOffers.get(i)!} />}
                    {issue.code === 'import-undeclared' && issue.specifier !== undefined && byId.get(issue.specifier)?.status === 'ready' && (
                      <>
                        {' '}
                        <button type="button" className="link" onClick={() => declare(issue.specifier as string)}>
                          Declare {issue.specifier}
                        </button>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
            <FailureText error={validation.error} prefix="The node could not be checked:" />
          </section>
          <RunControls nodeId={node.id} run={run} current={request} errors={errors} />
          <RunInWindow nodeId={node.id} request={request} onFinished={setWindowRun} />
        </div>
        <div className="node-side">
          <PackagePicker
            nodeId={node.id}
            modules={modules}
            byId={byId}
            packages={node.packages}
            onChange={(packages) => updateNode(node.id, (n) => ({ ...n, packages }))}
            onPicked={(m) => updateNode(node.id, (n) => ({ ...n, code: withImportLine(n.code, m) }))}
          />
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
