// The main-side entry of the contract, shared by every face: take a method name and a payload
// exactly as they arrived (unknown), parse both against the contract, call the handler, and parse
// the handler's answer before it leaves. A malformed request is a tagged `invalid-request`, a
// throwing handler or an answer that breaks the contract is a logged bug answered with `internal`
// — never a crash and never a stack trace to the client.

import { fail, type Failure, type Result } from '../protocol/result.ts';
import { formatIssues } from '../protocol/parse.ts';
import { CONTRACT, isMethodName, responseSchemaOf, type MethodName, type ParsedRequestOf, type ValueOf } from './methods.ts';

/** Who is calling: lets a handler (or its logs) tell the faces apart. */
export interface CallContext {
  readonly face: 'ipc' | 'http' | 'cli' | 'mcp' | 'test';
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
}

const MAX_METHOD_NAME = 64;

export function createDispatcher(handlers: Handlers, options: DispatcherOptions = {}): Dispatcher {
  const onBug = options.onBug ?? (() => {});
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
    const request = CONTRACT[method].request.safeParse(payload);
    if (!request.success) return fail('invalid-request', `${method}: ${formatIssues(request.error.issues)}`);
    let result: Result<ValueOf<M>>;
    try {
      const handler = handlers[method] as Handler<M>;
      result = await handler(request.data as ParsedRequestOf<M>, context);
    } catch (error) {
      onBug(method, error);
      return internal(method);
    }
    const response = responseSchemaOf(method).safeParse(result);
    if (!response.success) {
      onBug(method, new ContractViolation(`${method} answered outside its contract: ${formatIssues(response.error.issues)}`));
      return internal(method);
    }
    return response.data;
  }
}

function internal(method: string): Failure {
  return fail('internal', `${method} failed inside the app; the details are in its log.`);
}

/** A handler answered with a shape its contract does not allow: a bug on the main side. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}
