// Messages between the compiler and its probe worker; parsed with zod on each side because a
// worker message is a boundary like any other.

import { z } from 'zod';
import { ErrorCodeSchema } from '../../shared/protocol/codes.ts';

export const ProbeRequestSchema = z
  .object({
    source: z.string(),
    filename: z.string().max(300),
    deadlineMs: z.number().int().min(1).max(30_000),
  })
  .strict();
export type ProbeRequest = z.infer<typeof ProbeRequestSchema>;

export const ProbeResponseSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), exports: z.array(z.string()), outputBytes: z.number().int().min(0), initMs: z.number().min(0) }).strict(),
  // The kernel's own failure code (runtime-error, timeout, import-denied, …); a probe worker that
  // could not answer says sandbox-crashed. `transient` marks an outcome that must not be cached.
  z.object({ ok: z.literal(false), code: ErrorCodeSchema, message: z.string(), transient: z.boolean().optional() }).strict(),
]);
export type ProbeResponse = z.infer<typeof ProbeResponseSchema>;

/** The worker's first message: engine loaded, deadline may start. */
export const ReadySchema = z.object({ ready: z.literal(true) }).strict();
