// The sandbox worker's message protocol. Both directions are parsed with zod from `unknown`:
// a worker runs guest code, so main never trusts what comes back without checking its shape,
// and the worker never acts on a malformed request.

import { z } from 'zod';
import { KernelRunRequestSchema, RunResultSchema } from '../../../shared/protocol/run.ts';

const HostCallResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);

export const ToWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run'), runId: z.number().int(), request: KernelRunRequestSchema }),
  z.object({ type: z.literal('host-result'), runId: z.number().int(), callId: z.number().int(), result: HostCallResultSchema }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

export const FromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({
    type: z.literal('host-call'),
    runId: z.number().int(),
    callId: z.number().int(),
    kind: z.enum(['capability', 'wasm']),
    name: z.string(),
    args: z.array(z.unknown()),
  }),
  z.object({ type: z.literal('done'), runId: z.number().int(), result: RunResultSchema, healthy: z.boolean() }),
]);
export type FromWorker = z.infer<typeof FromWorkerSchema>;
