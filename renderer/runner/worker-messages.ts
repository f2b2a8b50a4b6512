// The browser kernel worker's message protocol, parsed with zod on both sides: the worker runs
// guest code, so the page never trusts a reply's shape, and the worker never acts on a malformed
// request. Same shape as the Node worker's (electron/runtime/sandbox/messages.ts), plus the
// engine's WASM URL, which in a page is an asset the web host serves.

import { z } from 'zod';
import { KernelRunRequestSchema, RunLogSchema, RunResultSchema } from '../../shared/protocol/run.ts';

export const HostCallResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }).strict(),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }).strict(),
]);

export const ToKernelWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('init'), engineWasmUrl: z.string().min(1) }).strict(),
  z.object({ type: z.literal('run'), runId: z.number().int(), request: KernelRunRequestSchema }).strict(),
  z.object({ type: z.literal('host-result'), runId: z.number().int(), callId: z.number().int(), result: HostCallResultSchema }).strict(),
]);
export type ToKernelWorker = z.infer<typeof ToKernelWorkerSchema>;

export const FromKernelWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('boot-failed'), message: z.string() }).strict(),
  z
    .object({
      type: z.literal('host-call'),
      runId: z.number().int(),
      callId: z.number().int(),
      kind: z.enum(['capability', 'wasm']),
      name: z.string(),
      args: z.array(z.unknown()),
    })
    .strict(),
  z.object({ type: z.literal('done'), runId: z.number().int(), result: RunResultSchema, healthy: z.boolean() }).strict(),
  /** A console entry the run kept, sent as it is kept: the page has the logs so far if it must terminate the worker. */
  z.object({ type: z.literal('log'), runId: z.number().int(), entry: RunLogSchema }).strict(),
]);
export type FromKernelWorker = z.infer<typeof FromKernelWorkerSchema>;

/** What the page needs of a worker: the part of the DOM `Worker` the runner uses. */
export interface WorkerLike {
  postMessage(message: unknown): void;
  terminate(): void;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  /** A message from the worker that could not be deserialized (for example, nested too deeply). */
  onmessageerror?: ((event: MessageEvent) => void) | null;
}
