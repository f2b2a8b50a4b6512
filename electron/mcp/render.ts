// Tagged results → MCP tool results. A model reads `content` (text); programs read
// `structuredContent` (the same tagged result, shaped by tool-schemas.ts). A failure is a tool
// result with isError and "code: message" as its text — never a protocol error, so the model
// sees the sentence and can correct itself, and never a stack trace.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ReceiptIsolated, RunLog, RunReceipt } from '../../shared/protocol/run.ts';
import { displayText } from '../../shared/protocol/display-text.ts';

/** Longest returned value or log the text summary repeats (the structured content has it all). */
const MAX_TEXT = 8_000;

/** The text a model reads: pack-supplied names, reasons, SKILL.md and logs with hidden characters shown as \uXXXX. */
function modelText(text: string): string {
  return displayText(text, { multiline: true });
}

export function toolOk(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text: modelText(text) }], structuredContent: { ok: true, ...structured } };
}

export interface ToolFailure {
  readonly code: string;
  readonly message: string;
  readonly logs?: readonly RunLog[];
  readonly receipt?: RunReceipt;
}

export function toolError(failure: ToolFailure): CallToolResult {
  const text = [`${failure.code}: ${failure.message}`, ...runDetails(failure.logs, failure.receipt)].join('\n');
  return {
    isError: true,
    content: [{ type: 'text', text: modelText(text) }],
    structuredContent: {
      ok: false,
      code: failure.code,
      message: failure.message,
      ...(failure.logs ? { logs: failure.logs } : {}),
      ...(failure.receipt ? { receipt: failure.receipt } : {}),
    },
  };
}

export function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}… (${text.length - MAX_TEXT} more characters in structuredContent)`;
}

/** The value as JSON text; `undefined` (the code returned nothing) says so. */
export function valueText(value: unknown): string {
  return value === undefined ? 'undefined (the code returned nothing)' : clip(JSON.stringify(value));
}

/** Logs, then one receipt line: what ran, what it called, what was denied. */
export function runDetails(logs: readonly RunLog[] | undefined, receipt: RunReceipt | undefined): string[] {
  const lines: string[] = [];
  if (logs && logs.length > 0) {
    lines.push(`Logs (${logs.length}):`);
    for (const log of logs) lines.push(`[${log.level}] ${clip(log.text)}`);
  }
  if (receipt) {
    const modules = receipt.modules.length ? receipt.modules.map((m) => `${m.displayName} (sha256 ${m.digest.slice(0, 12)}…)`).join(', ') : 'none';
    // A run may make hundreds of calls: one entry per name and outcome, with a count.
    const counts = new Map<string, number>();
    for (const c of receipt.calls) {
      const key = `${c.name}${c.ok ? '' : ` failed: ${c.code ?? 'error'}`}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const calls = counts.size ? [...counts].map(([key, n]) => (n > 1 ? `${key} ×${n}` : key)).join(', ') : 'none';
    const denied = receipt.denied.length
      ? receipt.denied.map((d) => `${d.kind} ${JSON.stringify(d.request)} from ${d.from} (${d.code})`).join(', ')
      : 'nothing';
    // Only a run that imported something isolated says so: the common line stays as short as it was.
    const isolated = receipt.isolated?.length ? `; isolated ${receipt.isolated.map(isolatedText).join(', ')}` : '';
    lines.push(`Receipt: ${Math.round(receipt.wallMs)} ms; modules ${modules}; calls ${calls}; denied ${denied}${isolated}.`);
  }
  return lines;
}

/** `@x/yaml (calls parse ×2, dump)`: an isolated module and the node's calls into it. */
function isolatedText(module: ReceiptIsolated): string {
  const calls = module.calls.map((c) => (c.count > 1 ? `${c.export} ×${c.count}` : c.export)).join(', ');
  return `${module.displayName} (${calls ? `calls ${calls}` : 'no calls'})`;
}
