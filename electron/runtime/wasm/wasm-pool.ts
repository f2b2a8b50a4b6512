// The process-wide WASM worker pool (Node `worker_threads`): it implements the dispatcher's
// `WasmPoolPort`. Four workers by default; each runs one call at a time, so a runaway export
// occupies one worker and nothing else. Calls queue FIFO when all workers are busy.
//
// A call's timer starts when a ready worker receives it. When it fires the call answers
// `wasm-timeout`, the worker is terminated (the only way to stop a running WASM function) and a
// replacement is started at once; the next call works. A worker that dies on its own fails its
// call with `internal` and is replaced the same way; if workers keep dying before they are ready
// (a broken install), the pool stops respawning and fails calls instead of looping.
//
// Ownership: the pool owns its workers and their timers; `dispose()` fails what is pending and
// resolves once every worker — including ones terminated for timeouts — has exited.

import { Worker } from 'node:worker_threads';
import { LIMITS, fail, type ErrorCode } from '../../../shared/protocol/index.ts';
import type { WasmPoolPort, WasmPoolReply, WasmPoolRequest } from '../../../shared/sandbox/wasm-dispatcher.ts';
import { WasmModuleCache } from './module-cache.ts';
import { WASM_WORKER_URL, WorkerReplySchema, type WorkerCallMessage, type WorkerReply } from './worker-protocol.ts';

export interface WasmPoolOptions {
  /** Number of workers (default 4). */
  readonly size?: number;
  /** Shared compile cache; one per process is the point, so pass the same one to every pool. */
  readonly cache?: WasmModuleCache;
  /**
   * The worker entry; defaults to wasm-worker.mjs next to this file. It is plain ESM with no
   * imports beyond node:worker_threads, so a bundled build copies it verbatim next to the bundle
   * and passes its URL here (esbuild does not follow `new Worker(url)`).
   */
  readonly workerEntry?: URL;
}

export interface WasmPoolStats {
  readonly workers: number;
  readonly ready: number;
  readonly busy: number;
  readonly queued: number;
  /** Workers started over the pool's life, the first ones included. */
  readonly started: number;
  /** Workers terminated for a timeout, an abort, or a crash. */
  readonly replaced: number;
}

interface Job {
  readonly id: number;
  readonly request: WasmPoolRequest;
  readonly digest: string;
  readonly module: WebAssembly.Module;
  readonly resolve: (reply: WasmPoolReply) => void;
  readonly onAbort: () => void;
  slot?: Slot;
  timer?: ReturnType<typeof setTimeout>;
  settled: boolean;
}

interface Slot {
  readonly worker: Worker;
  readonly known: Set<string>;
  ready: boolean;
  retired: boolean;
  job?: Job;
}

const MAX_START_FAILURES = 3;

export class WasmPool implements WasmPoolPort {
  readonly size: number;
  private readonly cache: WasmModuleCache;
  private readonly workerEntry: URL;
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private readonly exiting = new Set<Promise<unknown>>();
  private nextId = 1;
  private started = 0;
  private replaced = 0;
  private startFailures = 0;
  private broken: string | undefined;
  private disposed = false;

  constructor(options: WasmPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? LIMITS.wasmPoolSize));
    this.cache = options.cache ?? new WasmModuleCache();
    this.workerEntry = options.workerEntry ?? WASM_WORKER_URL;
    for (let i = 0; i < this.size; i++) this.spawn();
  }

  async call(request: WasmPoolRequest): Promise<WasmPoolReply> {
    if (this.disposed) return reply('internal', 'the WASM pool has been shut down', 0);
    if (request.signal?.aborted) return aborted();
    const compiled = await this.cache.get(request.bytes);
    if (!compiled.ok) return { ...compiled, runMs: 0 };
    if (this.disposed) return reply('internal', 'the WASM pool has been shut down', 0);
    if (this.broken) return reply('internal', this.broken, 0);
    if (request.signal?.aborted) return aborted();

    return new Promise<WasmPoolReply>((resolve) => {
      const job: Job = {
        id: this.nextId++,
        request,
        digest: compiled.value.digest,
        module: compiled.value.module,
        resolve,
        settled: false,
        onAbort: () => this.abortJob(job),
      };
      request.signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  stats(): WasmPoolStats {
    let ready = 0;
    let busy = 0;
    for (const s of this.slots) {
      if (s.ready) ready++;
      if (s.job) busy++;
    }
    return { workers: this.slots.size, ready, busy, queued: this.queue.length, started: this.started, replaced: this.replaced };
  }

  /** Thread ids of the live workers (tests use them to see a worker was replaced). */
  threadIds(): number[] {
    return [...this.slots].map((s) => s.worker.threadId);
  }

  /** Fails pending calls, terminates every worker and waits until all of them have exited. */
  async dispose(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      for (const job of this.queue.splice(0)) this.settle(job, reply('internal', 'the WASM pool was shut down before the call ran', 0));
      for (const slot of [...this.slots]) {
        if (slot.job) this.settle(slot.job, reply('internal', 'the WASM pool was shut down during the call', 0));
        this.retire(slot);
      }
    }
    while (this.exiting.size) await Promise.all([...this.exiting]);
  }

  private spawn(): void {
    const worker = new Worker(this.workerEntry, {
      // No inherited loaders or flags: the entry is plain ESM and starts fastest bare.
      execArgv: [],
      // WASM memories are external to the JS heap (and bounded by validation); this caps the
      // worker's own JS heap, which only ever holds a call's few numbers.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
    const slot: Slot = { worker, known: new Set(), ready: false, retired: false };
    this.slots.add(slot);
    this.started++;
    worker.on('message', (raw: unknown) => this.onMessage(slot, raw));
    worker.on('error', (error) => this.onExit(slot, `the WASM worker failed: ${error.message}`));
    worker.on('exit', (code) => this.onExit(slot, `the WASM worker stopped unexpectedly (exit code ${code})`));
  }

  private onMessage(slot: Slot, raw: unknown): void {
    if (slot.retired) return;
    const parsed = WorkerReplySchema.safeParse(raw);
    if (!parsed.success) {
      if (slot.job) this.settle(slot.job, reply('internal', 'the WASM worker sent a malformed reply', 0));
      this.replace(slot);
      return;
    }
    const msg: WorkerReply = parsed.data;
    if (msg.type === 'ready') {
      slot.ready = true;
      this.startFailures = 0;
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || msg.id !== job.id) return; // a late reply for a call already settled
    if (msg.type === 'missing') {
      this.post(slot, job, true);
      return;
    }
    slot.job = undefined;
    this.settle(job, msg.ok ? { ok: true, value: msg.value, runMs: msg.runMs } : reply(msg.code, msg.message, msg.runMs));
    this.pump();
  }

  private onExit(slot: Slot, why: string): void {
    if (slot.retired) return;
    if (!slot.ready) this.startFailures++;
    if (slot.job) this.settle(slot.job, reply('internal', why, 0));
    if (this.startFailures >= MAX_START_FAILURES) {
      this.broken = `WASM workers fail to start: ${why}`;
      for (const job of this.queue.splice(0)) this.settle(job, reply('internal', this.broken, 0));
      this.retire(slot);
      return;
    }
    this.replace(slot);
  }

  private pump(): void {
    if (this.disposed) return;
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.queue.shift() as Job;
      slot.job = job;
      job.slot = slot;
      this.post(slot, job, !slot.known.has(job.digest));
      const { timeoutMs } = job.request;
      job.timer = setTimeout(() => {
        this.settle(job, reply('wasm-timeout', `\`${job.request.exportName}\` ran longer than its ${timeoutMs} ms limit and was stopped`, timeoutMs));
        this.replace(slot);
      }, timeoutMs);
    }
  }

  private post(slot: Slot, job: Job, withModule: boolean): void {
    const msg: WorkerCallMessage = {
      type: 'call',
      id: job.id,
      digest: job.digest,
      exportName: job.request.exportName,
      args: [...job.request.args],
      ...(withModule ? { module: job.module } : {}),
    };
    slot.known.add(job.digest);
    slot.worker.postMessage(msg);
  }

  private abortJob(job: Job): void {
    if (job.settled) return;
    const at = this.queue.indexOf(job);
    if (at >= 0) this.queue.splice(at, 1);
    const running = job.slot && job.slot.job === job ? job.slot : undefined;
    this.settle(job, aborted());
    // A running call can only be stopped by stopping its worker.
    if (running) this.replace(running);
  }

  private settle(job: Job, result: WasmPoolReply): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    job.request.signal?.removeEventListener('abort', job.onAbort);
    if (job.slot && job.slot.job === job) job.slot.job = undefined;
    job.resolve(result);
  }

  /** Terminate a worker and, unless the pool is going away, start its replacement at once. */
  private replace(slot: Slot): void {
    if (slot.retired) return;
    this.retire(slot);
    this.replaced++;
    if (!this.disposed && !this.broken) this.spawn();
    this.pump();
  }

  private retire(slot: Slot): void {
    if (slot.retired) return;
    slot.retired = true;
    this.slots.delete(slot);
    const exit = slot.worker.terminate().catch(() => undefined);
    this.exiting.add(exit);
    void exit.finally(() => this.exiting.delete(exit));
  }
}

function reply(code: ErrorCode, message: string, runMs: number): WasmPoolReply {
  return { ...fail(code, message), runMs };
}

function aborted(): WasmPoolReply {
  return reply('timeout', 'the run ended before the WASM call finished', 0);
}
