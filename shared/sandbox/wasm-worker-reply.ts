// What a WASM pool worker may say back to its pool, on Node and in the browser alike. A worker runs
// pack code, so the pool parses every reply from `unknown` with this schema before acting on it;
// one schema for both hosts keeps their failures reading the same.

import { z } from 'zod';

const runMs = z.number().min(0);
/** Any JS number: zod's z.number() refuses NaN and ±Infinity, which f32/f64 results may be. */
const anyNumber = z.custom<number>((v) => typeof v === 'number', 'expected a number');

export const WasmWorkerReplySchema = z.union([
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('missing'), id: z.number().int() }).strict(),
  z.object({ type: z.literal('result'), id: z.number().int(), ok: z.literal(true), value: anyNumber.optional(), runMs }).strict(),
  z
    .object({
      type: z.literal('result'),
      id: z.number().int(),
      ok: z.literal(false),
      code: z.enum(['wasm-trap', 'internal']),
      message: z.string().max(10_000),
      runMs,
    })
    .strict(),
]);
export type WasmWorkerReply = z.infer<typeof WasmWorkerReplySchema>;

const RESULT_KEYS = new Set(['type', 'id', 'ok', 'value', 'runMs']);

/**
 * Parse a worker's reply; undefined when it is malformed. The hot shape, a successful scalar
 * result, is checked by hand first (zod costs 10–25 µs per reply while V8 warms it up between
 * calls, measured); the fast path accepts only what the schema accepts, and everything else is
 * decided by the schema.
 */
export function parseWasmWorkerReply(raw: unknown): WasmWorkerReply | undefined {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const r = raw as Record<string, unknown>;
    const keys = Object.keys(r);
    if (
      keys.length === 5 &&
      keys.every((k) => RESULT_KEYS.has(k)) &&
      r.type === 'result' &&
      r.ok === true &&
      Number.isSafeInteger(r.id) &&
      typeof r.value === 'number' &&
      typeof r.runMs === 'number' &&
      Number.isFinite(r.runMs) &&
      r.runMs >= 0
    ) {
      return { type: 'result', id: r.id as number, ok: true, value: r.value, runMs: r.runMs };
    }
  }
  const parsed = WasmWorkerReplySchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
