// Runs the SKILL.md examples skill-examples.ts prepared, through the same code runner the app's
// `code.run` uses (resolution through the catalog, the sandbox pool, the WASM dispatcher), with
// no capabilities granted. Each example is reported by its SKILL.md line: a sandbox failure with
// the sandbox's own code and message, a wrong asserted value as `example-mismatch`.

import { z } from 'zod';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import { replaceCodePosition } from '../../shared/protocol/code-position.ts';
import type { CodeRunner } from '../services/code-runner.ts';
import { jsonEqual, skillLineOf, type PreparedExample } from './skill-examples.ts';

/** Per-example deadline: an example is a few lines of documentation, not a workload. */
export const EXAMPLE_TIMEOUT_MS = 10_000;

export interface ExampleFailure {
  readonly line: number;
  readonly code: ErrorCode;
  readonly message: string;
}

export interface ExampleOutcome {
  /** SKILL.md line of the block's opening fence. */
  readonly fenceLine: number;
  readonly specifiers: readonly string[];
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly assertions: number;
  readonly failures: readonly ExampleFailure[];
  /** Why a block was skipped. */
  readonly note?: string;
}

// What the generated program returns (skill-examples.ts PRELUDE/EPILOGUE), parsed from unknown.
const ChecksSchema = z.object({ checks: z.array(z.object({ line: z.number().int(), value: z.unknown() }).strict()) }).loose();

const show = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value));

/** `isolation`: every example imports its packs with `isolation: true` (issue 31: the examples must hold both ways). */
export async function runExamples(
  runner: CodeRunner,
  examples: readonly PreparedExample[],
  options: { readonly isolation?: boolean } = {},
): Promise<ExampleOutcome[]> {
  const outcomes: ExampleOutcome[] = [];
  for (const example of examples) {
    const base = { fenceLine: example.block.fenceLine, specifiers: example.specifiers };
    if (example.kind === 'skip') {
      outcomes.push({ ...base, status: 'skipped', assertions: 0, failures: [], note: example.reason });
      continue;
    }
    if (example.kind === 'invalid') {
      outcomes.push({ ...base, status: 'failed', assertions: 0, failures: [example.problem] });
      continue;
    }
    const ran = await runner.run({
      code: example.program,
      packages: example.specifiers.map((specifier) => (options.isolation ? { specifier, isolation: true } : { specifier })),
      timeoutMs: EXAMPLE_TIMEOUT_MS,
    });
    const failures: ExampleFailure[] = [];
    if (!ran.ok) {
      failures.push({ line: example.block.fenceLine, code: ran.code, message: `SKILL.md line ${example.block.fenceLine}: ${ran.message}` });
    } else if (!ran.value.result.ok) {
      const { code, message } = ran.value.result;
      const line = skillLineOf(message, example.block) ?? example.block.fenceLine;
      const text = replaceCodePosition(message, () => `SKILL.md line ${line}`);
      failures.push({ line, code: code as ErrorCode, message: `SKILL.md line ${line}: ${text}` });
    } else {
      const parsed = ChecksSchema.safeParse(ran.value.result.value);
      const checks = parsed.success ? parsed.data.checks : [];
      for (const assertion of example.assertions) {
        const recorded = checks.find((c) => c.line === assertion.line);
        if (!recorded) {
          failures.push({
            line: assertion.line,
            code: 'example-mismatch',
            message: `SKILL.md line ${assertion.line}: the asserted line never ran (the example returned before it).`,
          });
        } else if (!jsonEqual(recorded.value, assertion.expected)) {
          failures.push({
            line: assertion.line,
            code: 'example-mismatch',
            message: `SKILL.md line ${assertion.line}: expected ${show(assertion.expected)}, got ${show(recorded.value)}.`,
          });
        }
      }
    }
    outcomes.push({ ...base, status: failures.length ? 'failed' : 'passed', assertions: example.assertions.length, failures });
  }
  return outcomes;
}
