// The kernel worker's message protocol, one for both hosts: the Node pool's worker threads and the
// browser's Web Worker speak it (a host whose runs carry more — the Node worker's WASM plan —
// extends the run message). Both directions are parsed with zod from `unknown`: a worker runs
// guest code, so the host never trusts what comes back without checking its shape, and the worker
// never acts on a malformed request. Unknown keys are dropped, unknown codes refused.

import { z } from 'zod';
import { isErrorCode } from '../protocol/codes.ts';
import { LIMITS } from '../protocol/limits.ts';
import {
  HostCallResultSchema,
  IDENTIFIER_PATTERN,
  KernelRunRequestSchema,
  RunLogSchema,
  RunResultSchema,
  type KernelRunRequest,
  type RunLog,
  type RunResult,
} from '../protocol/run.ts';

const InitMessageSchema = z.object({ type: z.literal('init'), engineWasmUrl: z.string().min(1) });
/**
 * A run as every host sends it; the Node pool's extends it with the run's WASM plan. `nested`: the
 * host sent it to a worker busy with a long run, to be run inside that run's interrupt polls while
 * it is held, without any host call (a worker that cannot, or that is idle by the time it arrives,
 * runs it as usual; see sandbox-worker.ts).
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
  z.object({ type: z.literal('requeue'), runId: z.number().int(), nestable: z.boolean(), notAtPoll: z.literal(true).optional() }),
  /** The worker no longer keeps a source the run left out (source-cache.ts): the host sends the run again, in full. */
  z.object({ type: z.literal('resend'), runId: z.number().int() }),
]);
export type FromKernelWorker = z.infer<typeof FromKernelWorkerSchema>;

// Every guest-visible host call crosses this boundary twice. zod costs 8–25 µs per message here
// while V8 is still warming it up between waits (measured), so the two hot shapes are checked by
// hand first. A fast path only ever accepts what the schema accepts, and returns what zod would
// (known keys only); anything else, including every odd case, is decided by zod.

const isId = (v: unknown): v is number => Number.isSafeInteger(v);
type Fields = Record<string, unknown>;
const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);
const LEVELS: readonly unknown[] = RunLogSchema.shape.level.options;
const isLevel = (v: unknown): v is RunLog['level'] => LEVELS.includes(v);

/** Parse a message from a kernel worker; undefined when it is malformed. */
export function parseFromKernelWorker(raw: unknown): FromKernelWorker | undefined {
  if (
    isRecord(raw) &&
    raw.type === 'host-call' &&
    isId(raw.runId) &&
    isId(raw.callId) &&
    (raw.kind === 'capability' || raw.kind === 'wasm') &&
    typeof raw.name === 'string' &&
    Array.isArray(raw.args)
  ) {
    return { type: 'host-call', runId: raw.runId, callId: raw.callId, kind: raw.kind, name: raw.name, args: [...(raw.args as unknown[])] };
  }
  if (
    isRecord(raw) &&
    raw.type === 'log' &&
    isId(raw.runId) &&
    isRecord(raw.entry) &&
    isLevel(raw.entry.level) &&
    typeof raw.entry.text === 'string' &&
    Object.keys(raw.entry).length === 2
  ) {
    return { type: 'log', runId: raw.runId, entry: { level: raw.entry.level, text: raw.entry.text } };
  }
  // Every run ends with one: zod costs ~0.1 ms of the host's thread on it in a burst (measured).
  if (isRecord(raw) && raw.type === 'done' && isId(raw.runId) && typeof raw.healthy === 'boolean' && Object.keys(raw).length === 4) {
    const result = plainRunResult(raw.result);
    if (result) return { type: 'done', runId: raw.runId, result, healthy: raw.healthy };
  }
  const parsed = FromKernelWorkerSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

const isLog = (v: unknown): boolean => isPlain(v) && hasExactly(v, 2) && isLevel(v.level) && typeof v.text === 'string';
const isReceiptModule = (v: unknown): boolean =>
  isPlain(v) && hasExactly(v, 3) && typeof v.moduleId === 'string' && typeof v.displayName === 'string' && typeof v.digest === 'string';

/** RunResultSchema's rules by hand for the common result (no calls, no denials): the same result, or undefined (zod then decides). */
function plainRunResult(v: unknown): RunResult | undefined {
  if (!isPlain(v) || !Array.isArray(v.logs) || !v.logs.every(isLog)) return undefined;
  if (v.ok === true) {
    if (!hasExactly(v, 4) || !Object.hasOwn(v, 'value')) return undefined;
  } else if (v.ok !== false || !hasExactly(v, 5) || !isErrorCode(v.code) || typeof v.message !== 'string') return undefined;
  const receipt = v.receipt;
  if (!isPlain(receipt) || !hasExactly(receipt, 4) || typeof receipt.wallMs !== 'number' || !Number.isFinite(receipt.wallMs)) return undefined;
  const { modules, calls, denied } = receipt;
  if (!Array.isArray(modules) || !modules.every(isReceiptModule) || !Array.isArray(calls) || calls.length > 0 || !Array.isArray(denied) || denied.length > 0)
    return undefined;
  return v as RunResult;
}

/** A plain object (structured clones are; zod is left any other), with exactly `count` own keys and no `__proto__` key. */
const isPlain = (v: unknown): v is Fields => isRecord(v) && Object.getPrototypeOf(v) === Object.prototype;
const hasExactly = (v: Fields, count: number): boolean => {
  const keys = Object.keys(v);
  return keys.length === count && !keys.includes('__proto__');
};
const isStringRecord = (v: unknown): boolean => isPlain(v) && hasExactly(v, Object.keys(v).length) && Object.values(v).every((x) => typeof x === 'string');
const isShortString = (v: unknown): boolean => typeof v === 'string' && v.length >= 1 && v.length <= 256;

function isGuestModule(v: unknown): boolean {
  return (
    isPlain(v) &&
    hasExactly(v, 8) &&
    typeof v.moduleId === 'string' &&
    v.moduleId.length >= 1 &&
    (v.kind === 'js' || v.kind === 'wasm') &&
    typeof v.packName === 'string' &&
    typeof v.packVersion === 'string' &&
    typeof v.displayName === 'string' &&
    typeof v.source === 'string' &&
    isStringRecord(v.imports) &&
    typeof v.digest === 'string'
  );
}

/** A run message's `sources` by hand: a plain record of integers, or undefined (zod then decides). */
function plainSources(v: unknown): Record<string, number> | undefined {
  if (!isPlain(v) || !hasExactly(v, Object.keys(v).length)) return undefined;
  for (const value of Object.values(v)) if (!Number.isSafeInteger(value)) return undefined;
  return v as Record<string, number>;
}

/** KernelRunRequestSchema's rules by hand: the same request, or undefined (zod then decides). */
function plainRunRequest(v: unknown): KernelRunRequest | undefined {
  if (!isPlain(v) || !(hasExactly(v, 6) || (typeof v.partition === 'string' && hasExactly(v, 7)))) return undefined;
  const { code, entries, modules, inputs, grants, timeoutMs, partition } = v;
  if (partition !== undefined && (typeof partition !== 'string' || partition.length < 1 || partition.length > 128)) return undefined;
  if (typeof code !== 'string' || code.length > LIMITS.bundledJsBytes) return undefined;
  if (!isStringRecord(entries) || !isPlain(modules) || !hasExactly(modules, Object.keys(modules).length)) return undefined;
  if (!Object.values(modules).every(isGuestModule)) return undefined;
  if (!isPlain(inputs) || !hasExactly(inputs, Object.keys(inputs).length) || !Object.keys(inputs).every((name) => IDENTIFIER_PATTERN.test(name)))
    return undefined;
  if (!isPlain(grants) || !hasExactly(grants, 3) || typeof grants.fetch !== 'boolean' || typeof grants.workspace !== 'boolean') return undefined;
  if (!Array.isArray(grants.secrets) || grants.secrets.length > 64 || !grants.secrets.every(isShortString)) return undefined;
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs as number) < 1 || (timeoutMs as number) > LIMITS.guestTimeoutMs) return undefined;
  return v as KernelRunRequest;
}

/** Parse a message to a kernel worker against the host's schema (from `toKernelWorkerSchema`); undefined when malformed. */
export function parseToKernelWorker<S extends ReturnType<typeof toKernelWorkerSchema>>(schema: S, raw: unknown): z.infer<S> | undefined {
  // A run without host extras (the Node worker's WASM plan goes through zod): checked by hand,
  // since zod costs 40–70 µs on this message at the start of every run (measured in the worker).
  if (isPlain(raw) && raw.type === 'run' && isId(raw.runId)) {
    const nested = raw.nested === true;
    const sources = raw.sources === undefined ? undefined : plainSources(raw.sources);
    const keys = 3 + (nested ? 1 : 0) + (sources ? 1 : 0);
    const request = hasExactly(raw, keys) && (raw.sources === undefined || sources) ? plainRunRequest(raw.request) : undefined;
    if (request) {
      const message: { type: 'run'; runId: number; request: KernelRunRequest; nested?: true; sources?: Record<string, number> } = {
        type: 'run',
        runId: raw.runId,
        request,
      };
      if (nested) message.nested = true;
      if (sources) message.sources = sources;
      return message as z.infer<S>;
    }
  }
  if (isRecord(raw) && raw.type === 'host-result' && isId(raw.runId) && isId(raw.callId) && isRecord(raw.result)) {
    const result = raw.result;
    if (result.ok === true && Object.hasOwn(result, 'value') && Object.keys(result).length === 2) {
      return { type: 'host-result', runId: raw.runId, callId: raw.callId, result: { ok: true, value: result.value } } satisfies HostResultMessage as z.infer<S>;
    }
    if (result.ok === false && isErrorCode(result.code) && typeof result.message === 'string' && Object.keys(result).length === 3) {
      return {
        type: 'host-result',
        runId: raw.runId,
        callId: raw.callId,
        result: { ok: false, code: result.code, message: result.message },
      } satisfies HostResultMessage as z.infer<S>;
    }
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? (parsed.data as z.infer<S>) : undefined;
}
