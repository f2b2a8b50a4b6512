// The sandbox worker's message protocol. Both directions are parsed with zod from `unknown`:
// a worker runs guest code, so main never trusts what comes back without checking its shape,
// and the worker never acts on a malformed request.

import { z } from 'zod';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { KernelRunRequestSchema, RunLogSchema, RunResultSchema, type RunLog } from '../../../shared/protocol/run.ts';
import { WasmPlanSchema } from '../wasm/wasm-plan.ts';

const HostCallResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);

export const ToWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run'), runId: z.number().int(), request: KernelRunRequestSchema, wasm: WasmPlanSchema.optional() }),
  z.object({ type: z.literal('host-result'), runId: z.number().int(), callId: z.number().int(), result: HostCallResultSchema }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

/** What a sandbox worker is started with. */
export const SandboxWorkerDataSchema = z.object({ wasmLanes: z.number().int().min(1).max(LIMITS.wasmPoolSize) }).strict();
export type SandboxWorkerData = z.infer<typeof SandboxWorkerDataSchema>;

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
  /** A console entry the run kept, sent as it is kept: main has the logs so far if it must terminate the worker. */
  z.object({ type: z.literal('log'), runId: z.number().int(), entry: RunLogSchema }),
]);
export type FromWorker = z.infer<typeof FromWorkerSchema>;

// Every guest-visible host call crosses this boundary twice. zod costs 8–25 µs per message here
// while V8 is still warming it up between waits (measured), so the two hot shapes are checked by
// hand first. A fast path only ever accepts what the schema accepts, and returns what zod would
// (known keys only); anything else, including every odd case, is decided by zod.

const isId = (v: unknown): v is number => Number.isSafeInteger(v);
type Fields = Record<string, unknown>;
const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);
const LEVELS: readonly unknown[] = RunLogSchema.shape.level.options;
const isLevel = (v: unknown): v is RunLog['level'] => LEVELS.includes(v);

/** Parse a message from a sandbox worker; undefined when it is malformed. */
export function parseFromWorker(raw: unknown): FromWorker | undefined {
  if (isRecord(raw) && raw.type === 'host-call' && isId(raw.runId) && isId(raw.callId) && (raw.kind === 'capability' || raw.kind === 'wasm') && typeof raw.name === 'string' && Array.isArray(raw.args)) {
    return { type: 'host-call', runId: raw.runId, callId: raw.callId, kind: raw.kind, name: raw.name, args: [...(raw.args as unknown[])] };
  }
  if (isRecord(raw) && raw.type === 'log' && isId(raw.runId) && isRecord(raw.entry) && isLevel(raw.entry.level) && typeof raw.entry.text === 'string' && Object.keys(raw.entry).length === 2) {
    return { type: 'log', runId: raw.runId, entry: { level: raw.entry.level, text: raw.entry.text } };
  }
  const parsed = FromWorkerSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Parse a message to a sandbox worker; undefined when it is malformed. */
export function parseToWorker(raw: unknown): ToWorker | undefined {
  if (isRecord(raw) && raw.type === 'host-result' && isId(raw.runId) && isId(raw.callId) && isRecord(raw.result)) {
    const result = raw.result;
    if (result.ok === true && Object.hasOwn(result, 'value')) {
      return { type: 'host-result', runId: raw.runId, callId: raw.callId, result: { ok: true, value: result.value } };
    }
    if (result.ok === false && typeof result.code === 'string' && typeof result.message === 'string') {
      return { type: 'host-result', runId: raw.runId, callId: raw.callId, result: { ok: false, code: result.code, message: result.message } };
    }
  }
  const parsed = ToWorkerSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
