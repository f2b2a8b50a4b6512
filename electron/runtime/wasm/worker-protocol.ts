// The messages between the WASM pool and its workers. Replies come from a thread that runs pack
// code, so the host parses each one from `unknown` before acting on it; calls are built here,
// typed, and checked by hand in the worker (which stays dependency-free, see wasm-worker.mjs).

import { z } from 'zod';
import { assetUrl } from '../../platform/assets.ts';

export interface WorkerCallMessage {
  readonly type: 'call';
  readonly id: number;
  readonly digest: string;
  /** Sent the first time a worker needs this digest, and again when it reports it missing. */
  readonly module?: WebAssembly.Module;
  readonly exportName: string;
  readonly args: readonly number[];
}

const runMs = z.number().min(0);
/** Any JS number: zod's z.number() refuses NaN and ±Infinity, which f32/f64 results may be. */
const anyNumber = z.custom<number>((v) => typeof v === 'number', 'expected a number');

export const WorkerReplySchema = z.union([
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
export type WorkerReply = z.infer<typeof WorkerReplySchema>;

/** Where the worker entry lives. A bundler does not follow this URL: copy the file next to the bundle. */
export const WASM_WORKER_URL = assetUrl('wasm-worker');
