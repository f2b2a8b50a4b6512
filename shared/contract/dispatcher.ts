// The main-side entry of the contract, shared by every face: take a method name and a payload
// exactly as they arrived (unknown), parse both against the contract, call the handler, and parse
// the handler's answer before it leaves. A malformed request is a tagged `invalid-request`, a
// throwing handler or an answer that breaks the contract is a logged bug answered with `internal`
// — never a crash and never a stack trace to the client. A list answer is the exception: one row
// that breaks the contract is stood in for or left out (answer-lists.ts), logged, and the rest of
// the list answers, so one bad pack can never take a list away from every face.
//
// For the hot path of issue 17: a request is parsed with zod's compiled form of the contract's
// schema (requestParser; the same results and issues), and `code.run`'s answer is not parsed again,
// since it is made only of parts already checked against the contract's own schemas where they
// came in (ANSWERS_CHECKED_AT_SOURCE). Re-parsing it cost 13–20 µs a run measured in the web host
// and could only ever have passed it through unchanged.

import { z } from 'zod';
import { fail, type Failure, type Result } from '../protocol/result.ts';
import { formatIssues } from '../protocol/parse.ts';
import { answerLists } from './answer-lists.ts';
import { CONTRACT, isMethodName, responseSchemaOf, type MethodName, type ParsedRequestOf, type ValueOf } from './methods.ts';
import { repairRows } from './row-repair.ts';

/** Who is calling: lets a handler (or its logs) tell the faces apart. */
export interface CallContext {
  readonly face: 'ipc' | 'http' | 'cli' | 'mcp' | 'test';
  /**
   * Which caller of the face, where a face serves several in one process (default: the face
   * itself). code.run keeps what one caller's runs leave warm for that caller's runs only.
   */
  readonly caller?: string;
  /**
   * Capabilities the contract deliberately does not carry (they name host paths and secret
   * values, which a renderer must never supply): only the CLI grants them, for its own user, and
   * code.run honours them only when `face` is 'cli'.
   */
  readonly grants?: FaceGrants;
}

/** What the CLI may grant a run beyond the request: a workspace folder, secrets with their values. */
export interface FaceGrants {
  readonly workspace?: { readonly dir: string };
  readonly secrets?: Readonly<Record<string, string | undefined>>;
}

export type Handler<M extends MethodName> = (request: ParsedRequestOf<M>, context: CallContext) => Promise<Result<ValueOf<M>>>;
export type Handlers = { readonly [M in MethodName]: Handler<M> };

export interface Dispatcher {
  handle(method: unknown, payload: unknown, context: CallContext): Promise<Result<unknown>>;
}

export interface DispatcherOptions {
  /** Where bugs go (a throwing handler, a response that breaks the contract). */
  readonly onBug?: (method: string, error: unknown) => void;
  /**
   * Where a list answer goes that broke the contract in some rows and was answered without them
   * (answer-lists.ts): a bug as well, but one the caller got an answer despite. Defaults to onBug.
   */
  readonly onRowsRepaired?: (method: string, violation: ContractViolation) => void;
}

const MAX_METHOD_NAME = 64;

/**
 * Methods whose answers the dispatcher hands on without parsing them again, because each part was
 * checked against the contract's schemas on its way in:
 * - `code.run`: `{ result, resolved }` from the code runner (electron/services/code-runner.ts).
 *   `result` is either the sandbox worker's own `done` result, parsed from `unknown` with the very
 *   RunResultSchema this contract answers with (shared/sandbox/kernel-worker-messages.ts: a strict
 *   schema, so it has no other keys), or one the kernel host builds itself for an end it decides
 *   (timeout, cancel, crash) from a code literal, a sentence, the already parsed logs and an empty
 *   receipt; `resolved` is built field by field (four strings) from the catalog's resolution. The
 *   guest's own value is `unknown` in the schema, so the parse never checked it anyway.
 * A test (electron/services/code-answers.test.ts) runs real code.run answers of every kind
 * through the contract's answer schema and checks it would change nothing.
 */
const ANSWERS_CHECKED_AT_SOURCE: ReadonlySet<MethodName> = new Set(['code.run']);

export function createDispatcher(handlers: Handlers, options: DispatcherOptions = {}): Dispatcher {
  const onBug = options.onBug ?? (() => {});
  const onRowsRepaired = options.onRowsRepaired ?? onBug;
  return {
    async handle(method, payload, context) {
      if (!isMethodName(method)) {
        const shown = typeof method === 'string' ? JSON.stringify(method.slice(0, MAX_METHOD_NAME)) : typeof method;
        return fail('invalid-request', `method: there is no service method ${shown}`);
      }
      return dispatchKnown(method, payload, context);
    },
  };

  async function dispatchKnown<M extends MethodName>(method: M, payload: unknown, context: CallContext): Promise<Result<unknown>> {
    const request = requestParser(method)(payload);
    if (!request.success) return fail('invalid-request', `${method}: ${formatIssues(request.error.issues)}`);
    let result: Result<ValueOf<M>>;
    try {
      const handler = handlers[method] as Handler<M>;
      result = await handler(request.data as ParsedRequestOf<M>, context);
    } catch (error) {
      onBug(method, error);
      return internal(method);
    }
    if (ANSWERS_CHECKED_AT_SOURCE.has(method)) return result;
    const schema = responseSchemaOf(method);
    const response = schema.safeParse(result);
    if (response.success) return response.data;
    const violation = `${method} answered outside its contract: ${formatIssues(response.error.issues)}`;
    // A list answer is total: the rows that break the contract are stood in for or left out, and the rest answers.
    const lists = answerLists(method);
    // (A handler's answer is only typed, not checked: a buggy one may not even be an object.)
    const value: unknown = typeof result === 'object' && result !== null && result.ok === true ? result.value : undefined;
    if (value !== undefined && lists.length > 0) {
      const repaired = repairRows(value, lists);
      const again = schema.safeParse({ ok: true, value: repaired.value });
      if (again.success) {
        onRowsRepaired(method, new ContractViolation(`${violation}. Answered without those rows: ${repaired.notes.join('; ')}`));
        return again.data;
      }
    }
    onBug(method, new ContractViolation(violation));
    return internal(method);
  }
}

function internal(method: string): Failure {
  return fail('internal', `${method} failed inside the app; the details are in its log.`);
}

/** A handler answered with a shape its contract does not allow: a bug on the main side. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

type SafeParse = (payload: unknown) => z.ZodSafeParseResult<unknown>;

const requestParsers = new Map<MethodName, SafeParse>();

/**
 * A method's request parse: the contract's schema compiled by zod (z.compile: the same results and
 * the same issues, from a generated parser instead of the schema walk; measured 15–20 µs a call
 * less on code.run's request in the web host). Built on a method's first call.
 */
export function requestParser(method: MethodName): SafeParse {
  let parser = requestParsers.get(method);
  if (!parser) {
    parser = compiledParser(CONTRACT[method].request);
    requestParsers.set(method, parser);
  }
  return parser;
}

/**
 * zod compiles no schema that holds a reference cycle, and code.run's request has one in an
 * optional key (its inputs are z.json()). Such an object schema is compiled without the keys zod
 * cannot compile, and that parser used only for a payload that carries none of them (not even
 * through its prototype), where the two schemas agree: each such key is optional with no default
 * (it parses `undefined` to `undefined`), so its absence passes and leaves the output without it.
 * A payload with one of them, or any payload the compiled parser refuses, is parsed by the whole
 * schema, so every refusal comes with the whole schema's issues.
 */
function compiledParser(schema: z.ZodType): SafeParse {
  const whole: SafeParse = (payload) => schema.safeParse(payload);
  const compiled = z.compile(schema);
  if (compiled !== schema) return (payload) => compiled.safeParse(payload);
  if (!(schema instanceof z.ZodObject)) return whole;
  const shape = schema.shape as Record<string, z.ZodType>;
  const uncompiled = Object.keys(shape).filter((key) => z.compile(shape[key]!) === shape[key]);
  const optional = (key: string) => {
    const parsed = shape[key]!.safeParse(undefined);
    return parsed.success && parsed.data === undefined;
  };
  if (uncompiled.length === 0 || !uncompiled.every(optional)) return whole;
  let rest: z.ZodType;
  try {
    rest = z.compile(schema.omit(Object.fromEntries(uncompiled.map((key) => [key, true] as const)) as Record<string, true>), { strict: true });
  } catch {
    return whole;
  }
  return (payload) => {
    if (payload === null || typeof payload !== 'object' || uncompiled.some((key) => key in payload)) return whole(payload);
    const parsed = rest.safeParse(payload);
    return parsed.success ? parsed : whole(payload);
  };
}
