// The kernel worker's message protocol, one for both hosts: the Node pool's worker threads and the
// browser's Web Worker speak it (a host whose runs carry more — the Node worker's WASM plan —
// extends the run message). Both directions are parsed with zod from `unknown`: a worker runs
// guest code, so the host never trusts what comes back without checking its shape, and the worker
// never acts on a malformed request. Unknown keys are dropped, unknown codes refused.

import { z } from 'zod';
import { compiled, type SafeParse } from '../../protocol/compiled.ts';
import { HostCallResultSchema, KernelRunRequestSchema, RunLogSchema, RunResultSchema } from '../../protocol/run.ts';

const InitMessageSchema = z.object({ type: z.literal('init'), engineWasmUrl: z.string().min(1) });
/**
 * A run as every host sends it; the Node pool's extends it with the run's WASM plan. `nested`: the
 * host sent it to a worker busy with a long run, to be run inside that run's interrupt polls while
 * it is held, without any host call (a worker that cannot, or that is idle by the time it arrives,
 * runs it as usual; see kernel-worker-loop.ts).
 */
export const RunMessageSchema = z.object({
  type: z.literal('run'),
  runId: z.number().int(),
  request: KernelRunRequestSchema,
  nested: z.literal(true).optional(),
  /** Module sources the worker keeps or fills in (source-cache.ts). */
  sources: z.record(z.string(), z.number().int()).optional(),
});
const HostResultMessageSchema = z.object({ type: z.literal('host-result'), runId: z.number().int(), callId: z.number().int(), result: HostCallResultSchema });
export type HostResultMessage = z.infer<typeof HostResultMessageSchema>;

/** What a kernel worker takes, with the host's own run message (see RunMessageSchema). */
export function toKernelWorkerSchema<R extends typeof RunMessageSchema>(run: R) {
  return z.discriminatedUnion('type', [InitMessageSchema, run, HostResultMessageSchema]);
}

export const ToKernelWorkerSchema = toKernelWorkerSchema(RunMessageSchema);
export type ToKernelWorker = z.infer<typeof ToKernelWorkerSchema>;

export const FromKernelWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The browser worker could not compile its engine; the host counts it as a failed start. */
  z.object({ type: z.literal('boot-failed'), message: z.string() }),
  z.object({
    type: z.literal('host-call'),
    runId: z.number().int(),
    callId: z.number().int(),
    kind: z.enum(['capability', 'wasm']),
    name: z.string(),
    args: z.array(z.unknown()),
  }),
  z.object({ type: z.literal('done'), runId: z.number().int(), result: RunResultSchema, healthy: z.boolean() }),
  /** A console entry the run kept, sent as it is kept: the host has the logs so far if it must terminate the worker. */
  z.object({ type: z.literal('log'), runId: z.number().int(), entry: RunLogSchema }),
  /**
   * A nested run given back with nothing of it sent anywhere: `nestable` false when the run itself
   * gave up (it needed a host call or ran past the nested budget), true when the worker could not
   * take it — no sandbox ready, or (`notAtPoll`) it arrived while the run in progress was not at a
   * poll (awaiting a host call or a WASM lane), where no second run may start. The host runs it
   * again from the start, as usual or nested elsewhere.
   */
  z.object({
    type: z.literal('requeue'),
    runId: z.number().int(),
    nestable: z.boolean(),
    notAtPoll: z.literal(true).optional(),
    /** Given up for wall time only, with few polls (a busy machine, not a spinning run): it may be nested again, a few times. */
    slow: z.literal(true).optional(),
    /**
     * Given up because no WASM lane of this worker was free (one is being replaced after a spinning
     * call, or all are busy): the run may be nested again elsewhere, a few times; the worker still
     * takes other nested runs.
     */
    noLane: z.literal(true).optional(),
  }),
  /** The worker no longer keeps a source the run left out (source-cache.ts): the host sends the run again, in full. */
  z.object({ type: z.literal('resend'), runId: z.number().int() }),
]);
export type FromKernelWorker = z.infer<typeof FromKernelWorkerSchema>;

// Every guest-visible host call crosses this boundary twice, and every run once each way: these
// parse with zod's compiled form of the schemas (shared/protocol/compiled.ts), the same answers
// as the schemas at the cost the hand-written checks that stood here had.

const fromKernelWorker = compiled(FromKernelWorkerSchema);

/** Parse a message from a kernel worker; undefined when it is malformed. */
export function parseFromKernelWorker(raw: unknown): FromKernelWorker | undefined {
  const parsed = fromKernelWorker(raw);
  return parsed.success ? parsed.data : undefined;
}

const toKernelWorker = new WeakMap<z.ZodType, SafeParse<unknown>>();

/** Parse a message to a kernel worker against the host's schema (from `toKernelWorkerSchema`); undefined when malformed. */
export function parseToKernelWorker<S extends ReturnType<typeof toKernelWorkerSchema>>(schema: S, raw: unknown): z.infer<S> | undefined {
  let parse = toKernelWorker.get(schema);
  if (!parse) {
    parse = compiled(schema);
    toKernelWorker.set(schema, parse);
  }
  const parsed = parse(raw);
  return parsed.success ? (parsed.data as z.infer<S>) : undefined;
}
