// The page side of the browser kernel worker: one Web Worker over the shared kernel host core
// (shared/sandbox/hosting/kernel-host-core.ts: queue, watchdog, retire and replace, host-call routing,
// log streaming, cancel, close — the same supervisor as the app's Node pool; runs are taken first
// in, first out, scheduler.ts). This adapter says how the worker starts (a module Web Worker told
// where the engine's WASM is), how its events reach the core, and how the page's ports answer a
// run's capability and WASM calls. A worker that keeps failing to start (three tries) leaves the
// window answering why, instead of respawning forever.

import type { HostCallResult, KernelRunRequest, RunResult } from '../../shared/protocol/run.ts';
import { KernelHostCore, type KernelWorker, type KernelWorkerHooks } from '../../shared/sandbox/hosting/kernel-host-core.ts';
import { KernelHostClosedError } from '../../shared/sandbox/hosting/kernel-host-closed.ts';
import type { ToKernelWorker } from '../../shared/sandbox/hosting/kernel-worker-messages.ts';
import { fifoScheduler } from '../../shared/sandbox/hosting/scheduler.ts';
import type { WorkerLike } from './worker-messages.ts';

export interface KernelHostPorts {
  readonly capability: (name: string, args: readonly unknown[]) => Promise<HostCallResult>;
  /** `exportName` and `args` arrive as the guest passed them: the port checks them (the dispatcher does). */
  readonly wasm: (moduleId: string, exportName: unknown, args: unknown) => Promise<HostCallResult>;
}

export interface KernelHostOptions {
  /** Starts the kernel worker (an adapter: `new Worker(url, { type: 'module' })` in a page). */
  readonly startWorker: () => WorkerLike;
  /** URL of quickjs-ng's .wasm as the web host serves it. */
  readonly engineWasmUrl: string;
  /** Extra time past a run's deadline before the worker is terminated (default 1000 ms). */
  readonly graceMs?: number;
}

export class KernelHost {
  readonly #core: KernelHostCore<KernelHostPorts>;

  constructor(options: KernelHostOptions) {
    this.#core = new KernelHostCore<KernelHostPorts>({
      size: 1,
      // A page's one worker takes its runs in order: nothing is held, nested or started beside it.
      scheduler: fifoScheduler,
      graceMs: options.graceMs ?? 1000,
      startWorker: (hooks) => startWebWorker(options, hooks),
      runMessage: (runId, request, _ports, sources): ToKernelWorker => ({ type: 'run', runId, request, ...(sources ? { sources } : {}) }),
      answer: (ports, call) => (call.kind === 'wasm' ? ports.wasm(call.name, call.args[0], call.args[1]) : ports.capability(call.name, call.args)),
      wording: {
        crashed: (why) => `The sandbox stopped unexpectedly (${why}); a fresh sandbox took its place.`,
        cannotStart: (why) => `The sandbox cannot start in this window: ${why}`,
        closedQueued: 'The page closed the sandbox before the code finished.',
        closedRunning: 'The page closed the sandbox before the code finished.',
        side: 'page',
      },
    });
  }

  /** Workers started over the host's life, replacements included. */
  get started(): number {
    return this.#core.started;
  }

  /** `cancel` ends the run with `cancelled` when it fires (a running one costs the worker, which is replaced). */
  run(request: KernelRunRequest, ports: KernelHostPorts, cancel?: AbortSignal): Promise<RunResult> {
    if (this.#core.closed) return Promise.reject(new KernelHostClosedError('the browser kernel host'));
    return this.#core.run(request, ports, cancel);
  }

  /** Terminates the worker; queued and running invocations answer `sandbox-crashed`. */
  close(): void {
    void this.#core.close();
  }
}

function startWebWorker(options: KernelHostOptions, hooks: KernelWorkerHooks): KernelWorker {
  const worker = options.startWorker();
  worker.onmessage = (event) => hooks.message(event.data);
  worker.onerror = (event) => {
    event.preventDefault?.();
    hooks.crashed(`the sandbox worker failed: ${event.message || 'unknown error'}`);
  };
  // Which message was lost is unknowable, and the worker may still be running the job: it goes.
  worker.onmessageerror = () => hooks.crashed('the sandbox worker sent a message the page could not read, for example a value nested too deeply');
  const init: ToKernelWorker = { type: 'init', engineWasmUrl: options.engineWasmUrl };
  worker.postMessage(init);
  return {
    postMessage: (message) => worker.postMessage(message),
    terminate: () => {
      worker.onmessage = null;
      worker.onerror = null;
      worker.onmessageerror = null;
      worker.terminate();
    },
  };
}
