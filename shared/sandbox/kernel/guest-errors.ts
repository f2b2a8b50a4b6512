// Turns what the guest threw into a tagged failure a user can read: the engine's own limits
// (interrupt, out of memory, stack) become their codes, a loader or capability denial keeps its
// code and sentence, and anything else is a runtime error located at the user's own line and
// column (or named by the pack module it came from). A ReferenceError for a global the sandbox
// deliberately lacks says so (the admission probe's skip reason is this same message).

import { isErrorCode, type ErrorCode } from '../../protocol/codes.ts';
import type { ReceiptDenial } from '../../protocol/run.ts';
import { LIMITS, formatBytes } from '../../protocol/limits.ts';
import { ENTRY_MODULE_NAME, type EntryModule } from './entry-transform.ts';
import { refineErrorPosition } from './error-position.ts';
import type { LoaderGraph } from './loader-policy.ts';

/** What `context.dump` yields for a thrown value: an Error-like object or any JSON value. */
export type GuestErrorInfo = { name?: unknown; message?: unknown; stack?: unknown; code?: unknown } | string | number | boolean | null | undefined;

export interface ClassifyContext {
  readonly interrupted: boolean;
  readonly denials: ReadonlyMap<string, ReceiptDenial>;
  readonly entry: EntryModule;
  readonly graph: LoaderGraph;
  readonly timeoutMs: number;
}

export type GuestFailure = { ok: false; code: ErrorCode; message: string };

/** Codes a guest Error may carry from the host side (the guest could forge one, mislabelling only its own failure). */
const HOST_CODES = /^(wasm-[a-z-]+|fetch-[a-z-]+|response-too-large|workspace-failed|secret-not-set|capability-denied)$/;

/** Globals code reaches for that the sandbox does not have, with the sentence a ReferenceError for one gets. */
const ABSENT_GLOBALS: Readonly<Record<string, string>> = {
  Intl: 'Intl is not available in the sandbox: quickjs-ng has no internationalization API (no Intl.DateTimeFormat, NumberFormat, Collator or Segmenter); format without it, or use a library that carries its own locale data.',
};

const NOT_DEFINED = /^([A-Za-z_$][\w$]*) is not defined$/;

const NO_ERROR = { name: undefined, message: '' };

const FRAME = /(?:\(|\s)([^\s()]+):(\d+):(\d+)\)?\s*$/;

/**
 * Where the error happened, in the user's terms: the first stack frame in the node's code or in a
 * pack's module (with the node's line that called into the pack). The engine's position is
 * corrected for the errors it misplaces (error-position.ts).
 */
export function locate(
  stack: string,
  context: Pick<ClassifyContext, 'entry' | 'graph'>,
  error: { name: string | undefined; message: string } = NO_ERROR,
): string | undefined {
  let inModule: string | undefined;
  let first = true;
  for (const raw of stack.split('\n')) {
    const match = FRAME.exec(raw.trim());
    if (!match) {
      // Raised inside a built-in (`Object.keys(null)`): the caller's frame is at the call, already exact.
      if (/\(native\)\s*$/.test(raw)) first = false;
      continue;
    }
    const [, name = '', line = '0', column = '0'] = match;
    if (name === ENTRY_MODULE_NAME) {
      const mapped = context.entry.mapPosition(Number(line), Number(column));
      const at = first ? (refineErrorPosition(context.entry.code, 'node-code', error, mapped) ?? mapped) : mapped;
      first = false;
      if (!at) continue;
      const here = `line ${at.line}, column ${at.column}`;
      return inModule ? `${inModule}; called from ${here}` : here;
    }
    const module = Object.hasOwn(context.graph.modules, name) ? context.graph.modules[name] : undefined;
    if (module && inModule === undefined) {
      const reported = { line: Number(line), column: Number(column) };
      const source = (module as { source?: unknown }).source;
      const at = first && typeof source === 'string' ? (refineErrorPosition(source, 'module', error, reported) ?? reported) : reported;
      inModule = `in ${module.displayName}, line ${at.line}, column ${at.column}`;
    }
    first = false;
  }
  return inModule;
}

export function classifyGuestError(info: GuestErrorInfo, context: ClassifyContext): GuestFailure {
  const isObject = info !== null && typeof info === 'object';
  const name = isObject && typeof info.name === 'string' ? info.name : undefined;
  const message = isObject ? (typeof info.message === 'string' ? info.message : JSON.stringify(info)) : String(info);
  const stack = isObject && typeof info.stack === 'string' ? info.stack : '';

  if (context.interrupted || (name === 'InternalError' && message === 'interrupted')) {
    return { ok: false, code: 'timeout', message: `The code ran longer than its ${context.timeoutMs} ms time limit and was stopped.` };
  }
  if (info === null || /out of memory/i.test(message)) {
    return {
      ok: false,
      code: 'memory-limit',
      message: `The code used more than the ${formatBytes(LIMITS.guestMemoryBytes)} sandbox memory limit and was stopped.`,
    };
  }
  if (/stack overflow|maximum call stack/i.test(message)) {
    return { ok: false, code: 'stack-overflow', message: 'The code recursed too deeply and was stopped.' };
  }
  for (const [reason, denial] of context.denials) {
    if (message === reason || message.endsWith(reason)) return { ok: false, code: denial.code, message: reason };
  }
  // Host-side failures rethrown by the bridge library or a WASM facade carry their code.
  const hostCode = isObject && typeof info.code === 'string' && HOST_CODES.test(info.code) && isErrorCode(info.code) ? info.code : undefined;
  const where = stack ? locate(stack, context, { name, message }) : undefined;
  if (hostCode) return { ok: false, code: hostCode, message: where ? `${message} (${where})` : message };
  const label = name ? `${name}: ${message}` : `Uncaught ${message}`;
  const missing = name === 'ReferenceError' ? NOT_DEFINED.exec(message)?.[1] : undefined;
  const absent = missing !== undefined && Object.hasOwn(ABSENT_GLOBALS, missing) ? ` ${ABSENT_GLOBALS[missing]}` : '';
  return { ok: false, code: 'runtime-error', message: (where ? `${label} (${where})` : label) + (absent ? `.${absent}` : '') };
}
