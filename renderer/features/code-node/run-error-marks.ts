// A failed run's place in the node's code as a lint mark in the editor, beside the validation
// marks: the runtime error, rejection or syntax error the run answered, at the line and column its
// message names (shared/protocol/code-position.ts). Only while the code on screen is the code that
// ran: a mark on edited code would point at a line that may now hold something else.

import type { RequestOf, ValueOf } from '../../../shared/contract/methods.ts';
import { codePositionOf } from '../../../shared/protocol/code-position.ts';
import type { Failure } from '../../../shared/protocol/result.ts';
import type { EditorMark } from './code-editor.tsx';

export type RunOutcome = { ok: true; value: ValueOf<'code.run'> } | Failure;

export interface FinishedRun {
  readonly request: RequestOf<'code.run'>;
  readonly outcome: RunOutcome;
}

const WHERE = { app: 'The run in the app failed', window: 'The run in this window failed' } as const;

/** The mark a finished run leaves on `code`, or nothing (it passed, names no place, or the code changed). */
export function runErrorMark(run: FinishedRun | undefined, code: string, where: keyof typeof WHERE): EditorMark[] {
  if (!run || run.request.code !== code) return [];
  const failure = run.outcome.ok ? (run.outcome.value.result.ok ? undefined : run.outcome.value.result) : run.outcome;
  if (!failure) return [];
  const at = codePositionOf(failure.message);
  if (!at) return [];
  return [{ severity: 'error', message: `${WHERE[where]}: ${failure.message} [${failure.code}]`, line: at.line, column: at.column }];
}
