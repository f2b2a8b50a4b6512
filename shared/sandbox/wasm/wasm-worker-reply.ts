// What a WASM pool worker may say back to its pool, on Node and in the browser alike. A worker runs
// pack code, so the pool parses every reply from `unknown` with this schema before acting on it;
// one schema for both hosts keeps their failures reading the same.

import { z } from 'zod';
import { compiled } from '../../protocol/compiled.ts';

const runMs = z.number().min(0);
/** Any JS number: zod's z.number() refuses NaN and ±Infinity, which f32/f64 results may be. */
const anyNumber = z.custom<number>((v) => typeof v === 'number', 'expected a number');

export const WasmWorkerReplySchema = z.union([
  /** `tid`: the worker's kernel thread id, where its host can name it (a Node lane on Linux). */
  z.object({ type: z.literal('ready'), tid: z.number().int().positive().optional() }).strict(),
  z.object({ type: z.literal('missing'), id: z.number().int() }).strict(),
  /** A bytes or string result arrives as bytes (canonical-abi.mjs); the dispatcher checks its length and UTF-8. */
  z
    .object({ type: z.literal('result'), id: z.number().int(), ok: z.literal(true), value: z.union([anyNumber, z.instanceof(Uint8Array)]).optional(), runMs })
    .strict(),
  z
    .object({
      type: z.literal('result'),
      id: z.number().int(),
      ok: z.literal(false),
      code: z.enum(['wasm-trap', 'wasm-budget-bytes', 'internal']),
      message: z.string().max(10_000),
      runMs,
    })
    .strict(),
]);
export type WasmWorkerReply = z.infer<typeof WasmWorkerReplySchema>;

const parseReply = compiled(WasmWorkerReplySchema);

/** Parse a worker's reply; undefined when it is malformed (zod's compiled parser: shared/protocol/compiled.ts). */
export function parseWasmWorkerReply(raw: unknown): WasmWorkerReply | undefined {
  const parsed = parseReply(raw);
  return parsed.success ? parsed.data : undefined;
}
