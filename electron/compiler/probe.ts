// Admission probe, host side: imports a bundle once through the real sandbox kernel on quickjs-ng,
// in a worker thread, with no grants, a short deadline and the normal guest limits (see
// probe-worker.ts). The kernel's interrupt enforces the deadline; the worker is terminated after a
// grace period for native work the interrupt cannot stop. The probe proves initialization only —
// the loader at run time stays authoritative.
//
// Invariant: each probe gets a fresh engine inside the worker (probe-worker.ts), so nothing a
// module leaves behind reaches the next one; a worker that timed out, crashed or answered out of
// protocol is terminated, never reused; no worker, idle or warmed, keeps the process alive.

import { Worker } from 'node:worker_threads';
import { assetUrl } from '../platform/assets.ts';
import { ProbeResponseSchema, ReadySchema, type ProbeRequest, type ProbeResponse } from './probe-protocol.ts';

export const PROBE_DEADLINE_MS = 5_000;
const TERMINATE_GRACE_MS = 3_000;
const BOOT_TIMEOUT_MS = 60_000;
/** How long a worker waits for another probe before it is terminated (a discovery probes in bursts). */
const IDLE_MS = 2_000;

export interface ProbeOptions {
  readonly deadlineMs?: number;
  /** Probes running at once (each on its own worker thread); discovery asks for many together. */
  readonly concurrency?: number;
}

/** Runs the admission probe. Expected failures come back as `{ ok: false, code, message }`. */
export type ProbeFn = ((source: string, filename: string) => Promise<ProbeResponse>) & {
  /** Start booting a worker now, for a probe that is likely to come soon. */
  readonly warm?: () => void;
};

export interface Probe extends ProbeFn {
  /** Workers started since creation: how tests and the bench see that one worker serves many probes. */
  readonly workersStarted: number;
  /** Start booting a worker for the next probe (no-op when one is idle or already booting). */
  readonly warm: () => void;
  /** Terminates the idle workers and an untaken warmed one now (a running probe keeps its worker until it answers). */
  close(): Promise<void>;
}

interface IdleWorker {
  readonly worker: Worker;
  readonly timer: NodeJS.Timeout;
}

interface Booting {
  readonly worker: Worker;
  /** true once the engine has loaded; a failure (the worker is then terminated) otherwise. */
  readonly ready: Promise<true | ProbeResponse>;
}

/**
 * Booting a worker (its module graph, the engine's WASM) costs far more than probing a typical
 * bundle, so a worker that answered is kept for the next probe: the probes of one discovery share
 * one worker per concurrent slot. An idle worker is terminated after IDLE_MS.
 *
 * warm() starts that boot early: the compiler calls it when a compile misses its cache, so the
 * worker boots while esbuild bundles instead of after it. A warmed worker is like any other — the
 * next probe takes it, or it is terminated after IDLE_MS.
 */
export function createProbe(options: ProbeOptions = {}): Probe {
  const deadlineMs = options.deadlineMs ?? PROBE_DEADLINE_MS;
  const limit = Math.max(1, options.concurrency ?? 2);
  let running = 0;
  let started = 0;
  const waiting: Array<() => void> = [];
  const idle: IdleWorker[] = [];

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

  const park = (worker: Worker): void => {
    worker.unref();
    const timer = setTimeout(() => {
      const at = idle.findIndex((entry) => entry.worker === worker);
      if (at !== -1) idle.splice(at, 1);
      void worker.terminate();
    }, IDLE_MS);
    timer.unref();
    idle.push({ worker, timer });
  };

  /** Starts a worker; it is ready (or has failed and been terminated) when `ready` settles. Boot is not part of any deadline. */
  const boot = (): Booting => {
    started++;
    const worker = new Worker(assetUrl('probe-worker'), { resourceLimits: { stackSizeMb: 16, maxOldGenerationSizeMb: 256 } });
    const ready = new Promise<true | ProbeResponse>((resolve) => {
      const timer = setTimeout(
        () => resolve({ ok: false, code: 'sandbox-crashed', message: 'the probe worker did not start', transient: true }),
        BOOT_TIMEOUT_MS,
      );
      timer.unref();
      const done = (value: true | ProbeResponse): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        resolve(value);
      };
      const onMessage = (raw: unknown): void => {
        if (ReadySchema.safeParse(raw).success) return done(true);
        const parsed = ProbeResponseSchema.safeParse(raw);
        done(
          parsed.success && !parsed.data.ok
            ? parsed.data
            : { ok: false, code: 'sandbox-crashed', message: 'the probe worker answered with an invalid message', transient: true },
        );
      };
      const onError = (error: Error): void =>
        done({ ok: false, code: 'sandbox-crashed', message: `the probe worker failed: ${error.message}`, transient: true });
      const onExit = (code: number): void => done({ ok: false, code: 'sandbox-crashed', message: `the probe worker exited (code ${code})`, transient: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    }).then(async (value) => {
      if (value !== true) await worker.terminate();
      return value;
    });
    return { worker, ready };
  };

  /** A worker warm() started that no probe has taken yet. */
  let warming: Booting | undefined;

  const warm = (): void => {
    if (warming || idle.length > 0) return;
    const booting = boot();
    // Nobody waits for it yet: it must not hold the process open.
    booting.worker.unref();
    warming = booting;
    void booting.ready.then((value) => {
      if (warming !== booting) return; // a probe took it
      warming = undefined;
      if (value === true) park(booting.worker);
    });
  };

  /** A ready worker: an idle one, the one warm() started, or a new one. */
  const take = async (): Promise<Worker | ProbeResponse> => {
    const reused = idle.pop();
    if (reused) {
      clearTimeout(reused.timer);
      reused.worker.ref();
      return reused.worker;
    }
    const booting = warming ?? boot();
    warming = undefined;
    booting.worker.ref();
    const value = await booting.ready;
    return value === true ? booting.worker : value;
  };

  const probeOn = async (worker: Worker, request: ProbeRequest): Promise<{ response: ProbeResponse; reusable: boolean }> => {
    let timer: NodeJS.Timeout | undefined;
    let onMessage: ((raw: unknown) => void) | undefined;
    let onError: ((error: Error) => void) | undefined;
    let onExit: ((code: number) => void) | undefined;
    try {
      return await new Promise((resolve) => {
        timer = setTimeout(
          () =>
            resolve({
              response: {
                ok: false,
                code: 'timeout',
                message: `InternalError: interrupted (the module did not finish initializing within ${request.deadlineMs} ms)`,
                transient: true,
              },
              reusable: false,
            }),
          request.deadlineMs + TERMINATE_GRACE_MS,
        );
        onMessage = (raw) => {
          const parsed = ProbeResponseSchema.safeParse(raw);
          resolve(
            parsed.success
              ? { response: parsed.data, reusable: true }
              : {
                  response: { ok: false, code: 'sandbox-crashed', message: 'the probe worker answered with an invalid message', transient: true },
                  reusable: false,
                },
          );
        };
        onError = (error) =>
          resolve({ response: { ok: false, code: 'sandbox-crashed', message: `the probe worker failed: ${error.message}`, transient: true }, reusable: false });
        onExit = (code) =>
          resolve({ response: { ok: false, code: 'sandbox-crashed', message: `the probe worker exited (code ${code})`, transient: true }, reusable: false });
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        worker.postMessage(request);
      });
    } finally {
      clearTimeout(timer);
      if (onMessage) worker.off('message', onMessage);
      if (onError) worker.off('error', onError);
      if (onExit) worker.off('exit', onExit);
    }
  };

  const probe = async (source: string, filename: string): Promise<ProbeResponse> => {
    await acquire();
    try {
      const worker = await take();
      if (!(worker instanceof Worker)) return worker;
      const { response, reusable } = await probeOn(worker, { source, filename, deadlineMs });
      if (reusable) park(worker);
      else await worker.terminate();
      return response;
    } finally {
      release();
    }
  };

  return Object.defineProperties(probe, {
    workersStarted: { get: () => started, enumerable: true },
    warm: { value: warm, enumerable: true },
    close: {
      value: async (): Promise<void> => {
        const all = idle.splice(0);
        for (const entry of all) clearTimeout(entry.timer);
        const unclaimed = warming;
        warming = undefined;
        await Promise.all([...all.map((entry) => entry.worker.terminate()), ...(unclaimed ? [unclaimed.worker.terminate()] : [])]);
      },
    },
  }) as Probe;
}
