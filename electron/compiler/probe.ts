// Admission probe, host side: imports a bundle once in the real quickjs-ng engine, in a worker
// thread, with a short deadline, the normal guest memory and stack limits and an output cap.
// The engine's interrupt enforces the deadline; the worker is terminated after a grace period
// for native work the interrupt cannot stop. The probe proves initialization only — the loader
// at run time stays authoritative.

import { Worker } from 'node:worker_threads';
import { LIMITS } from '../../shared/protocol/index.ts';
import { ProbeResponseSchema, type ProbeRequest, type ProbeResponse } from './probe-protocol.ts';

export const PROBE_DEADLINE_MS = 2_000;
const TERMINATE_GRACE_MS = 3_000;

export interface ProbeOptions {
  readonly deadlineMs?: number;
}

/** Runs the admission probe. Expected failures come back as `{ ok: false, error }`. */
export type ProbeFn = (source: string, filename: string) => Promise<ProbeResponse>;

export function createProbe(options: ProbeOptions = {}): ProbeFn {
  const deadlineMs = options.deadlineMs ?? PROBE_DEADLINE_MS;
  return async (source, filename) => {
    const request: ProbeRequest = {
      source,
      filename,
      deadlineMs,
      memoryBytes: LIMITS.guestMemoryBytes,
      stackBytes: LIMITS.guestStackBytes,
      outputBytes: LIMITS.consoleBytes,
    };
    const worker = new Worker(new URL('./probe-worker-boot.mjs', import.meta.url), {
      resourceLimits: { stackSizeMb: 16, maxOldGenerationSizeMb: 256 },
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<ProbeResponse>((resolve) => {
        timer = setTimeout(
          () => resolve({ ok: false, error: `InternalError: interrupted (the module did not finish initializing within ${deadlineMs} ms)` }),
          deadlineMs + TERMINATE_GRACE_MS,
        );
        worker.once('message', (raw: unknown) => {
          const parsed = ProbeResponseSchema.safeParse(raw);
          resolve(parsed.success ? parsed.data : { ok: false, error: 'the probe worker answered with an invalid message' });
        });
        worker.once('error', (error) => resolve({ ok: false, error: `the probe worker failed: ${error.message}` }));
        worker.once('exit', (code) => resolve({ ok: false, error: `the probe worker exited (code ${code})` }));
        worker.postMessage(request);
      });
    } finally {
      if (timer) clearTimeout(timer);
      await worker.terminate();
    }
  };
}
