// One way to parse what crosses a boundary: from `unknown`, through zod, to a tagged result
// whose message lists each issue as `path: message` and names where the data came from.

import type { z } from 'zod';
import { fail, ok, type Result } from './result.ts';

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.length ? issue.path.map(String).join('.') : '(root)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Parse `input` with `schema`; `source` names the file or channel for the message. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, source: string): Result<z.output<S>, 'invalid-data'> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return ok(parsed.data);
  return fail('invalid-data', `${source}: ${formatIssues(parsed.error.issues)}`);
}
