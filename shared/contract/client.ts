// The one interface every renderer face implements (preload IPC, HTTP). Components hold a
// ContractClient and never learn which transport is behind it. Both implementations parse what
// they receive with the method's response schema here, so a faulty or hostile main side can
// only ever produce a well-typed failure, never an unexpected shape.

import type { Result } from '../protocol/result.ts';
import { fail } from '../protocol/result.ts';
import { formatIssues } from '../protocol/parse.ts';
import { ContractEventSchema, type ContractEvent, type ContractEventListener, type Unsubscribe } from './events.ts';
import { responseSchemaOf, type MethodName, type RequestOf, type ValueOf } from './methods.ts';

export type ResponseOf<M extends MethodName> = Result<ValueOf<M>>;

export interface ContractClient {
  call<M extends MethodName>(method: M, request: RequestOf<M>): Promise<ResponseOf<M>>;
  /** Events pushed by main; the listener only ever sees parsed events. */
  onEvent(listener: ContractEventListener): Unsubscribe;
}

/** Parse a response that came over a transport; a shape mismatch becomes `invalid-data`. */
export function parseResponse<M extends MethodName>(method: M, raw: unknown): ResponseOf<M> {
  const parsed = responseSchemaOf(method).safeParse(raw);
  if (parsed.success) return parsed.data;
  return fail('invalid-data', `response of ${method}: ${formatIssues(parsed.error.issues)}`);
}

/** Parse an event that came over a transport; undefined when it does not match the contract. */
export function parseEvent(raw: unknown): ContractEvent | undefined {
  const parsed = ContractEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
