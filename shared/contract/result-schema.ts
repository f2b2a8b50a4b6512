// Every contract response is a tagged result. This file turns a value schema into the schema of
// `{ ok: true, value } | { ok: false, code, message }`, with the code restricted to the closed set,
// so a renderer can parse what main sent without trusting it.

import { z } from 'zod';
import { ErrorCodeSchema } from '../protocol/codes.ts';

export { ErrorCodeSchema };

export const FailureSchema = z.object({
  ok: z.literal(false),
  code: ErrorCodeSchema,
  message: z.string().max(10_000),
});

export function resultSchema<V extends z.ZodType>(value: V) {
  return z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), value }), FailureSchema]);
}
