// Admission probe, host side: imports a bundle once through the real sandbox kernel on quickjs-ng,
// in a worker thread, with no grants, a short deadline and the normal guest limits (see
// probe-worker.ts). The kernel's interrupt enforces the deadline; the worker is terminated after a
// grace period for native work the interrupt cannot stop. The probe proves initialization only —
// the loader at run time stays authoritative.

import { Worker } from 'node:worker_threads';
import { assetUrl } from '../platform/assets.ts';
import { ProbeResponseSchema, ReadySchema, type ProbeRequest, type ProbeResponse } from './probe-protocol.ts';

export const PROBE_DEADLINE_MS = 5_000;
const TERMINATE_GRACE_MS = 3_000;
const BOOT_TIMEOUT_MS = 60_000;

export interface ProbeOptions {
  readonly deadlineMs?: number;
  /** Probes running at once (each is a worker thread); discovery asks for many together. */
  readonly concurrency?: number;
}

/** Runs the admission probe. Expected failures come back as `{ ok: false, error }`. */
export type ProbeFn = (source: string, filename: string) => Promise<ProbeResponse>;

export function createProbe(options: ProbeOptions = {}): ProbeFn {
  const deadlineMs = options.deadlineMs ?? PROBE_DEADLINE_MS;
  const limit = Math.max(1, options.concurrency ?? 2);
  let running = 0;
  const waiting: Array<() => void> = [];
  const acquire = async (): Promise<void> => {
    if (running < limit) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (source, filename) => {
    await acquire();
    try {
      return await probeOnce(source, filename, deadlineMs);
    } finally {
      release();
    }
  };
}

async function probeOnce(source: string, filename: string, deadlineMs: number): Promise<ProbeResponse> {
  const request: ProbeRequest = { source, filename, deadlineMs };
  const worker = new Worker(assetUrl('probe-worker'), {
    resourceLimits: { stackSizeMb: 16, maxOldGenerationSizeMb: 256 },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<ProbeResponse>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, error: 'the probe worker did not start', transient: true }), BOOT_TIMEOUT_MS);
      worker.on('message', (raw: unknown) => {
        if (ReadySchema.safeParse(raw).success) {
          // The module's deadline starts now, not while the worker boots.
          clearTimeout(timer);
          timer = setTimeout(
            () => resolve({ ok: false, error: `InternalError: interrupted (the module did not finish initializing within ${deadlineMs} ms)`, transient: true }),
            deadlineMs + TERMINATE_GRACE_MS,
          );
          worker.postMessage(request);
          return;
        }
        const parsed = ProbeResponseSchema.safeParse(raw);
        if (!parsed.success) resolve({ ok: false, error: 'the probe worker answered with an invalid message', transient: true });
        else resolve(parsed.data);
      });
      worker.once('error', (error) => resolve({ ok: false, error: `the probe worker failed: ${error.message}`, transient: true }));
      worker.once('exit', (code) => resolve({ ok: false, error: `the probe worker exited (code ${code})`, transient: true }));
    });
  } finally {
    if (timer) clearTimeout(timer);
    await worker.terminate();
  }
}
