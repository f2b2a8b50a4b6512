// One contract method as data: its request schema, the schema of its success value, a summary.
import type { z } from 'zod';

export interface MethodSpec<Req extends z.ZodType = z.ZodType, Val extends z.ZodType = z.ZodType> {
  readonly request: Req;
  readonly value: Val;
  /** One line for docs and the UI's developer view. */
  readonly summary: string;
}

export function method<Req extends z.ZodType, Val extends z.ZodType>(request: Req, value: Val, summary: string): MethodSpec<Req, Val> {
  return { request, value, summary };
}
