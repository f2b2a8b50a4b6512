// One closed code set, checked wherever a code crosses a boundary: a run's result, its receipt,
// a workflow validation issue. A code outside the set is a parse failure, never passed on.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ErrorCodeSchema, explain } from './codes.ts';
import { RunResultSchema } from './run.ts';
import { ValidationIssueSchema } from './workflow.ts';

describe('the closed code set', () => {
  it('accepts each listed code and nothing else', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(ErrorCodeSchema.safeParse(code).success).toBe(true);
    expect(ErrorCodeSchema.safeParse('made-up').success).toBe(false);
    expect(explain('timeout')).toBe('The code ran longer than its time limit and was stopped.');
  });

  it('is what a run result and a validation issue may carry', () => {
    const receipt = { wallMs: 0, modules: [], calls: [], denied: [] };
    expect(RunResultSchema.safeParse({ ok: false, code: 'timeout', message: 'm', logs: [], receipt }).success).toBe(true);
    expect(RunResultSchema.safeParse({ ok: false, code: 'made-up', message: 'm', logs: [], receipt }).success).toBe(false);
    const issue = { nodeId: 'n', severity: 'error', message: 'm' };
    expect(ValidationIssueSchema.safeParse({ ...issue, code: 'import-undeclared' }).success).toBe(true);
    expect(ValidationIssueSchema.safeParse({ ...issue, code: 'made-up' }).success).toBe(false);
  });
});
