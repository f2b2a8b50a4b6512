// Expected failures are values, not exceptions: every operation that can fail for a reason a
// user can act on returns one of these, with a code from the closed set in codes.ts.

import type { ErrorCode } from './codes.ts';

export type Ok<T> = { readonly ok: true; readonly value: T };
export type Failure<C extends string = ErrorCode> = {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
};
export type Result<T, C extends string = ErrorCode> = Ok<T> | Failure<C>;

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
export const fail = <C extends string>(code: C, message: string): Failure<C> => ({ ok: false, code, message });
