// The sandbox worker thread's message protocol: the kernel workers' shared protocol
// (shared/sandbox/hosting/kernel-worker-messages.ts), whose run message here also carries the run's WASM
// plan (answered in the worker, see wasm-plan.ts), plus what a worker thread is started with.

import { z } from 'zod';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import {
  FromKernelWorkerSchema,
  parseFromKernelWorker,
  parseToKernelWorker,
  RunMessageSchema,
  toKernelWorkerSchema,
  type FromKernelWorker,
} from '../../../shared/sandbox/hosting/kernel-worker-messages.ts';
import { WasmPlanSchema } from '../wasm/wasm-plan.ts';
import { isHoldBuffer, isPressureBuffer } from './run-hold.ts';
import { isAnsweredWord } from './answered-word.ts';

export const ToWorkerSchema = toKernelWorkerSchema(RunMessageSchema.extend({ wasm: WasmPlanSchema.optional() }));
export type ToWorker = z.infer<typeof ToWorkerSchema>;

export const FromWorkerSchema = FromKernelWorkerSchema;
export type FromWorker = FromKernelWorker;

/** What a sandbox worker is started with: its WASM lanes, the buffer its runs are held through (run-hold.ts), and the word it restores after (answered-word.ts). */
export const SandboxWorkerDataSchema = z
  .object({
    wasmLanes: z.number().int().min(1).max(LIMITS.wasmPoolSize),
    hold: z
      .custom<Int32Array<SharedArrayBuffer>>((value) => value instanceof Int32Array, 'the hold buffer is an Int32Array')
      .refine(isHoldBuffer, 'the hold buffer is a shared Int32Array of the size run-hold.ts makes')
      .optional(),
    pressure: z
      .custom<Int32Array<SharedArrayBuffer>>((value) => value instanceof Int32Array, 'the pressure word is an Int32Array')
      .refine(isPressureBuffer, 'the pressure word is one shared Int32 slot')
      .optional(),
    answered: z
      .custom<Int32Array<SharedArrayBuffer>>((value) => value instanceof Int32Array, 'the answered word is an Int32Array')
      .refine(isAnsweredWord, 'the answered word is one shared Int32 slot')
      .optional(),
    answerWaitMs: z.number().positive().max(600_000).optional(),
  })
  .strict();
export type SandboxWorkerData = z.infer<typeof SandboxWorkerDataSchema>;

/** Parse a message from a sandbox worker; undefined when it is malformed. */
export const parseFromWorker = parseFromKernelWorker;

/** Parse a message to a sandbox worker; undefined when it is malformed. */
export function parseToWorker(raw: unknown): ToWorker | undefined {
  return parseToKernelWorker(ToWorkerSchema, raw);
}
