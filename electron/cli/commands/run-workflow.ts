// `sandbox-packs run WORKFLOW.json [--node ID]`: a saved workflow (the editor's format, parsed with
// the workflow schema) runs node by node, in file order, through the contract's code.run, each
// node with the packages and the grants the file gives it: fetch to its hosts, its secrets and its
// workspace resolved by node-grants.ts exactly as a run from the app resolves them. The workspace
// is the workflow's folder, found by the file's name (`<name>.json` → workflow "<name>").

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowNameSchema } from '../../../shared/contract/schemas.ts';
import { formatIssues } from '../../../shared/protocol/parse.ts';
import { emptyReceipt, type RunReceipt, type RunResult } from '../../../shared/protocol/run.ts';
import { WorkflowSchema, type CodeNode, type Workflow } from '../../../shared/protocol/workflow.ts';
import { resolveNodeGrants, type GrantSources } from '../../services/node-grants.ts';
import type { CliServices } from '../cli-services.ts';
import { EXIT, UsageError, type CliIo, type ExitCode } from '../command.ts';
import type { ErrorCode } from '../../../shared/protocol/codes.ts';

export type RunFile = { readonly kind: 'code'; readonly code: string } | { readonly kind: 'workflow'; readonly workflow: Workflow };

export interface RunOptions {
  readonly inputs: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly json: boolean;
}

/** A `.json` file is a workflow (checked against its schema); anything else is code. */
export async function readRunFile(file: string): Promise<RunFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  if (path.extname(file).toLowerCase() !== '.json') return { kind: 'code', code: text };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(
      `${file} is not valid JSON; a workflow file is the JSON the app saves (<data dir>/workflows/NAME.json). To run code, give a .js file.`,
    );
  }
  const parsed = WorkflowSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`${file} is not a workflow file: ${formatIssues(parsed.error.issues)}`);
  return { kind: 'workflow', workflow: parsed.data };
}

export interface WorkflowRun {
  readonly file: string;
  readonly workflow: Workflow;
  readonly node: string | undefined;
  readonly sources: GrantSources;
  readonly options: RunOptions;
}

export async function runWorkflow(services: CliServices, io: CliIo, run: WorkflowRun): Promise<ExitCode> {
  const { workflow, options } = run;
  let nodes: readonly CodeNode[] = workflow.nodes;
  if (run.node !== undefined) {
    const node = workflow.nodes.find((n) => n.id === run.node);
    if (!node)
      throw new UsageError(
        `${run.file} has no node "${run.node}"; its nodes are ${workflow.nodes.map((n) => JSON.stringify(n.id)).join(', ') || '(none)'}. Give one of them to --node.`,
      );
    nodes = [node];
  }
  if (nodes.length === 0) throw new UsageError(`${run.file} has no nodes to run.`);
  const name = path.basename(run.file, path.extname(run.file));
  const workflowName = WorkflowNameSchema.safeParse(name).success ? name : undefined;

  const results: { id: string; result: RunResult }[] = [];
  for (const node of nodes) results.push({ id: node.id, result: await runNode(services, node, workflowName, run) });
  if (run.node !== undefined) print(io, options.json, (results[0] as { result: RunResult }).result);
  else if (options.json) {
    const shown = results.map(({ id, result }) =>
      result.ok
        ? { id, ok: true, value: result.value, logs: result.logs, receipt: result.receipt }
        : { id, ok: false, code: result.code, message: result.message, logs: result.logs },
    );
    io.out(JSON.stringify({ ok: results.every((r) => r.result.ok), nodes: shown }, null, 2));
  } else
    for (const { id, result } of results) {
      io.out(`node ${id}:`);
      print(io, false, result);
    }
  return results.every((r) => r.result.ok) ? EXIT.ok : EXIT.failed;
}

async function runNode(services: CliServices, node: CodeNode, workflowName: string | undefined, run: WorkflowRun): Promise<RunResult> {
  const failed = (code: ErrorCode, message: string): RunResult => ({ ok: false, code, message, logs: [], receipt: emptyReceipt() });
  const wantsWorkspace = node.grants?.workspace === true;
  if (wantsWorkspace && workflowName === undefined && run.sources.workspaceDir === undefined)
    throw new UsageError(
      `Node "${node.id}" is granted a workspace, but "${path.basename(run.file)}" is not named like a saved workflow, so it has no workspace folder; give one with --workspace DIR.`,
    );
  const grants = await resolveNodeGrants(
    {
      ...(node.grants?.secrets ? { secrets: node.grants.secrets } : {}),
      ...(wantsWorkspace && workflowName !== undefined ? { workspace: { workflow: workflowName } } : {}),
    },
    run.sources,
  );
  if (!grants.ok) return failed(grants.code, grants.message);
  const hosts = node.grants?.fetch?.hosts.map((h) => h.toLowerCase()) ?? [];
  const outcome = await services.call(
    'code.run',
    { code: node.code, packages: node.packages, inputs: run.options.inputs, ...(hosts.length ? { fetchHosts: hosts } : {}), timeoutMs: run.options.timeoutMs },
    grants.value,
  );
  if (!outcome.ok) return failed(outcome.code, outcome.code === 'invalid-request' ? `Node "${node.id}": ${outcome.message}` : outcome.message);
  return outcome.value.result;
}

/** One run's answer: the JSON shape with --json, else logs and failures on stderr and the value on stdout. */
export function print(io: CliIo, json: boolean, result: RunResult): void {
  if (json) {
    io.out(
      JSON.stringify(
        result.ok
          ? { ok: true, value: result.value, logs: result.logs, receipt: result.receipt }
          : { ok: false, code: result.code, message: result.message, logs: result.logs },
        null,
        2,
      ),
    );
    return;
  }
  for (const log of result.logs) io.err(`[${log.level}] ${log.text}`);
  if (result.ok) io.out(JSON.stringify(result.value, null, 2) ?? 'undefined');
  else {
    io.err(`error (${result.code}): ${result.message}`);
    for (const d of result.receipt.denied) io.err(`  denied ${d.kind} ${JSON.stringify(d.request)} from ${d.from}`);
    // A denial from an isolated module reads differently knowing the module had no grants at all.
    for (const line of isolatedLines(result.receipt)) io.err(`  ${line}`);
  }
}

/** One line per module the run imported isolated: `isolated @x/y (calls: parse ×2, load)`. */
export function isolatedLines(receipt: RunReceipt): string[] {
  return (receipt.isolated ?? []).map((m) => {
    const calls = m.calls.map((c) => (c.count > 1 ? `${c.export} ×${c.count}` : c.export)).join(', ');
    return `isolated ${m.displayName} (${calls ? `calls: ${calls}` : 'no calls'})`;
  });
}
