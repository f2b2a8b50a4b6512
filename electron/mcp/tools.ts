// The four MCP tools: parse the arguments (from unknown, with the schemas in tool-schemas.ts),
// check them against this session's allowlist, dispatch through the service contract, and render
// the tagged result. Resolution, validation, disclosure and running all happen behind the
// contract, exactly as for the IPC, HTTP and CLI faces; what lives here is only the agent-facing
// policy: which specifiers this session may use, and that the model never chooses capabilities.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { fail, type Failure } from '../../shared/protocol/result.ts';
import type { ValidationIssue } from '../../shared/protocol/workflow.ts';
import { analyzeUserCode } from '../../shared/sandbox/kernel/entry-transform.ts';
import { wasmSignatureText } from '../../shared/packs/wasm-signature.ts';
import { clip, runDetails, toolError, toolOk, valueText } from './render.ts';
import { packAllowed, refuseNotAllowed, sessionView, type ContractCall } from './session.ts';
import { skillText } from './skill-text.ts';
import { isToolName, TOOLS, type ReadSkillInput, type RunCodeInput, type ValidateCodeInput } from './tool-schemas.ts';

export interface ToolDeps {
  readonly call: ContractCall;
  /** `--allow`: the session's allowlist, fixed for the server's lifetime; undefined = the user's settings. */
  readonly allow?: readonly string[];
  /** `--fetch`: hosts every run may fetch from. The model cannot add any. */
  readonly fetchHosts: readonly string[];
}

export async function callTool(deps: ToolDeps, name: string, args: unknown): Promise<CallToolResult> {
  if (!isToolName(name)) {
    return toolError({
      code: 'invalid-request',
      message: `There is no tool ${JSON.stringify(name.slice(0, 64))}; the tools are ${Object.keys(TOOLS).join(', ')}.`,
    });
  }
  const parsed = TOOLS[name].input.safeParse(args ?? {});
  if (!parsed.success) return toolError({ code: 'invalid-request', message: `${name} arguments: ${formatIssues(parsed.error.issues)}` });
  switch (name) {
    case 'list_sandbox_modules':
      return listModules(deps);
    case 'read_pack_skill':
      return readSkill(deps, parsed.data as z.output<typeof ReadSkillInput>);
    case 'run_code':
      return runCode(deps, parsed.data as z.output<typeof RunCodeInput>);
    case 'validate_code':
      return validateCode(deps, parsed.data as z.output<typeof ValidateCodeInput>);
  }
}

async function listModules(deps: ToolDeps): Promise<CallToolResult> {
  const view = await sessionView(deps.call, deps.allow);
  if (!view.ok) return toolError(view);
  const modules = view.value.modules.map((m) => ({
    specifier: m.specifier,
    packName: m.packName,
    kind: m.kind,
    line: m.summary,
    hasSkill: m.hasSkill,
    // A WASM module's exports with their types: what to pass (bytes: a Uint8Array) and what comes back.
    ...(m.signatures?.length ? { exports: m.signatures.map(wasmSignatureText) } : {}),
  }));
  const text = modules.length
    ? [
        'Modules this session may import (one per line):',
        ...modules.map(
          (m) => `${m.line}${m.exports ? `; exports ${m.exports.join(', ')}` : ''}${m.hasSkill ? `  [docs: read_pack_skill "${m.packName}"]` : ''}`,
        ),
      ].join('\n')
    : 'No modules are allowed in this session. Plain JavaScript without imports still runs; only the user can allow packs for an agent session.';
  return toolOk({ modules }, text);
}

async function readSkill(deps: ToolDeps, { packName }: z.output<typeof ReadSkillInput>): Promise<CallToolResult> {
  const view = await sessionView(deps.call, deps.allow);
  if (!view.ok) return toolError(view);
  // The same answer whether the pack is missing or only not allowed: the session learns nothing
  // about packs outside it.
  if (!packAllowed(view.value, packName)) {
    return toolError({
      code: 'session-not-allowed',
      message: `${JSON.stringify(packName)} has no module on this session's package allowlist, so its documentation is not available here. list_sandbox_modules shows the packs this session may use.`,
    });
  }
  const doc = await deps.call('catalog.skillDoc', { packName });
  if (!doc.ok) return toolError(doc);
  const text = skillText(doc.value);
  return toolOk({ packName: doc.value.packName, packVersion: doc.value.packVersion, trusted: doc.value.trusted, text }, text);
}

/** The declared specifiers, or the code's own static imports when none are given. */
function declaredSpecifiers(code: string, packages: readonly string[] | undefined) {
  if (packages !== undefined) return { ok: true as const, specifiers: [...new Set(packages)] };
  const analyzed = analyzeUserCode(code);
  if (!analyzed.ok) return analyzed;
  return { ok: true as const, specifiers: [...new Set(analyzed.value.imports.map((i) => i.specifier))] };
}

/** `isolate` marks declarations: an entry that is not one is a mistake the model can fix. */
function refuseUndeclaredIsolate(isolate: readonly string[], declared: readonly string[], fromPackages: boolean): Failure | undefined {
  const undeclared = [...new Set(isolate)].filter((s) => !declared.includes(s));
  if (undeclared.length === 0) return undefined;
  const names = undeclared.map((s) => JSON.stringify(s)).join(', ');
  const listed = declared.length ? declared.map((s) => JSON.stringify(s)).join(', ') : 'none';
  const where = fromPackages ? `in packages (${listed})` : `imported by the code (its imports: ${listed})`;
  return fail(
    'invalid-request',
    `isolate: ${names} ${undeclared.length === 1 ? 'is' : 'are'} not ${where}. Isolate only specifiers the code declares. The code was not run.`,
  );
}

async function runCode(deps: ToolDeps, input: z.output<typeof RunCodeInput>): Promise<CallToolResult> {
  const view = await sessionView(deps.call, deps.allow);
  if (!view.ok) return toolError(view);
  const declared = declaredSpecifiers(input.code, input.packages);
  if (!declared.ok) return toolError(declared);
  const undeclared = refuseUndeclaredIsolate(input.isolate ?? [], declared.specifiers, input.packages !== undefined);
  if (undeclared) return toolError(undeclared);
  const refused = refuseNotAllowed(declared.specifiers, view.value.allowed);
  if (refused) return toolError({ code: refused.code, message: `${refused.message} The code was not run.` });
  const isolated = new Set(input.isolate);
  const answer = await deps.call('code.run', {
    code: input.code,
    packages: declared.specifiers.map((specifier) => ({ specifier, ...(isolated.has(specifier) ? { isolation: true } : {}) })),
    ...(input.inputs ? { inputs: input.inputs } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    ...(deps.fetchHosts.length ? { fetchHosts: [...deps.fetchHosts] } : {}),
  });
  if (!answer.ok) return toolError(answer);
  const { result, resolved } = answer.value;
  if (!result.ok) return toolError(result);
  const text = [`Result: ${valueText(result.value)}`, ...runDetails(result.logs, result.receipt)].join('\n');
  return toolOk({ value: result.value, logs: result.logs, receipt: result.receipt, resolved }, text);
}

async function validateCode(deps: ToolDeps, input: z.output<typeof ValidateCodeInput>): Promise<CallToolResult> {
  const view = await sessionView(deps.call, deps.allow);
  if (!view.ok) return toolError(view);
  const declared = declaredSpecifiers(input.code, input.packages);
  // Unparsable code with no declaration: validation itself reports the syntax error.
  const specifiers = declared.ok ? declared.specifiers : [];
  const answer = await deps.call('code.validate', {
    workflow: { nodes: [{ id: 'code', type: 'code', code: input.code, packages: specifiers.map((specifier) => ({ specifier })) }] },
  });
  if (!answer.ok) return toolError(answer);
  // A specifier outside the session gets one issue, and nothing about whether it is installed.
  const refused = new Set(specifiers.filter((s) => !view.value.allowed.has(s)));
  const issues: Omit<ValidationIssue, 'nodeId'>[] = answer.value.issues
    .filter((i) => i.specifier === undefined || !refused.has(i.specifier))
    .map(({ nodeId: _node, ...issue }) => issue);
  for (const specifier of refused) {
    const failure = refuseNotAllowed([specifier], view.value.allowed);
    if (failure) issues.push({ severity: 'error', code: failure.code, message: failure.message, specifier });
  }
  const valid = !issues.some((i) => i.severity === 'error');
  const text =
    valid && issues.length === 0
      ? 'Valid: no issues.'
      : [valid ? 'Valid, with warnings:' : 'Not valid:', ...issues.map((i) => clip(`${i.severity} ${i.code}: ${i.message}`))].join('\n');
  return toolOk({ valid, issues }, text);
}
