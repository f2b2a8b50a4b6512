// The main-side entry of the contract, shared by every face: take a method name and a payload
// exactly as they arrived (unknown), parse both against the contract, call the handler, and parse
// the handler's answer before it leaves. A malformed request is a tagged `invalid-request`, a
// throwing handler or an answer that breaks the contract is a logged bug answered with `internal`
// — never a crash and never a stack trace to the client. A list answer is the exception: one row
// that breaks the contract is stood in for or left out (answer-lists.ts), logged, and the rest of
// the list answers, so one bad pack can never take a list away from every face.

import { fail, type Failure, type Result } from '../protocol/result.ts';
import { compiled, type SafeParse } from '../protocol/compiled.ts';
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
   * values, which a renderer must never supply): only the CLI grants them this way, for its own
   * user, and code.run honours them only when `face` is 'cli' (a page names its node's grants in
   * the request, and the host resolves them: electron/services/node-grants.ts).
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
    const response = responseParser(method)(result);
    if (response.success) return response.data;
    const violation = `${method} answered outside its contract: ${formatIssues(response.error.issues)}`;
    // A list answer is total: the rows that break the contract are stood in for or left out, and the rest answers.
    const lists = answerLists(method);
    // (A handler's answer is only typed, not checked: a buggy one may not even be an object.)
    const value: unknown = typeof result === 'object' && result !== null && result.ok === true ? result.value : undefined;
    if (value !== undefined && lists.length > 0) {
      const repaired = repairRows(value, lists);
      const again = responseParser(method)({ ok: true, value: repaired.value });
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

/**
 * A method's request parse: the contract's schema, compiled by zod (shared/protocol/compiled.ts):
 * the same results and issues as the schema's own parse, at a fraction of the cost on the hot
 * path (code.run; figures: docs/performance.md).
 */
export const requestParser = perMethod<unknown>((method) => compiled(CONTRACT[method].request));

/** A method's answer parse: the contract's answer schema, compiled by zod (compiled.ts). */
export const responseParser = perMethod<Result<unknown>>((method) => compiled(responseSchemaOf(method)));

/** One parser per method, made on the method's first call. */
function perMethod<T>(make: (method: MethodName) => SafeParse<T>): (method: MethodName) => SafeParse<T> {
  const made = new Map<MethodName, SafeParse<T>>();
  return (method) => {
    let parser = made.get(method);
    if (!parser) {
      parser = make(method);
      made.set(method, parser);
    }
    return parser;
  };
}
