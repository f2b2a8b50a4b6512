// The browser WASM pool on Web Workers: it implements the dispatcher's `WasmPoolPort`, with the
// same rules as the Node pool (electron/runtime/wasm/wasm-pool.ts) so budgets and failures read
// the same in both places. Each worker runs one call at a time; calls queue FIFO. A call's timer
// starts when a ready worker receives it; when it fires the call answers `wasm-timeout`, the
// worker is terminated (the only way to stop running WASM) and a replacement starts at once. A
// worker that dies fails its call with `internal` and is replaced; if workers keep dying before
// they are ready the pool stops respawning and fails calls instead.
//
// Modules are keyed by the sha256 of their bytes (computed here with the injected hash) and
// checked again against the host-wide binary rules; the workers compile them (the page compiles no
// WebAssembly, so its CSP stays without 'wasm-unsafe-eval'). `dispose()` fails what is pending and
// terminates every worker.

import { validateWasmBinary } from '../../shared/packs/wasm-binary.ts';
import type { Sha256HexAsync } from '../../shared/packs/digest.ts';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { WasmPoolPort, WasmPoolReply, WasmPoolRequest } from '../../shared/sandbox/wasm-dispatcher.ts';
import { z } from 'zod';
import type { WorkerLike } from './worker-messages.ts';

export interface BrowserWasmPoolOptions {
  readonly startWorker: () => WorkerLike;
  readonly sha256: Sha256HexAsync;
  /** Number of workers (default: the host's WASM pool size). */
  readonly size?: number;
}

const anyNumber = z.custom<number>((v) => typeof v === 'number', 'expected a number');
const runMs = z.number().min(0);
const WorkerReplySchema = z.union([
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('missing'), id: z.number().int() }).strict(),
  z.object({ type: z.literal('result'), id: z.number().int(), ok: z.literal(true), value: anyNumber.optional(), runMs }).strict(),
  z.object({ type: z.literal('result'), id: z.number().int(), ok: z.literal(false), code: z.enum(['wasm-trap', 'internal']), message: z.string().max(10_000), runMs }).strict(),
]);

interface Job {
  readonly id: number;
  readonly request: WasmPoolRequest;
  readonly digest: string;
  readonly bytes: Uint8Array;
  readonly resolve: (reply: WasmPoolReply) => void;
  readonly onAbort: () => void;
  slot?: Slot;
  timer?: ReturnType<typeof setTimeout>;
  settled: boolean;
}

interface Slot {
  readonly worker: WorkerLike;
  readonly known: Set<string>;
  ready: boolean;
  retired: boolean;
  job?: Job;
}

const MAX_START_FAILURES = 3;

export class BrowserWasmPool implements WasmPoolPort {
  readonly size: number;
  readonly #options: BrowserWasmPoolOptions;
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  readonly #digests = new WeakMap<Uint8Array, Promise<string>>();
  readonly #checked = new Map<string, Result<Uint8Array>>();
  #nextId = 1;
  #startFailures = 0;
  #broken: string | undefined;
  #disposed = false;
  started = 0;
  replaced = 0;

  constructor(options: BrowserWasmPoolOptions) {
    this.#options = options;
    this.size = Math.max(1, Math.floor(options.size ?? LIMITS.wasmPoolSize));
    for (let i = 0; i < this.size; i++) this.#spawn();
  }

  async call(request: WasmPoolRequest): Promise<WasmPoolReply> {
    if (this.#disposed) return reply('internal', 'the WASM pool has been shut down', 0);
    if (request.signal?.aborted) return aborted();
    const compiled = await this.#check(request.bytes);
    if (!compiled.ok) return { ...compiled, runMs: 0 };
    if (this.#disposed) return reply('internal', 'the WASM pool has been shut down', 0);
    if (this.#broken) return reply('internal', this.#broken, 0);
    if (request.signal?.aborted) return aborted();
    return new Promise<WasmPoolReply>((resolve) => {
      const job: Job = { id: this.#nextId++, request, digest: compiled.digest, bytes: compiled.value, resolve, settled: false, onAbort: () => this.#abortJob(job) };
      request.signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  get workers(): number {
    return this.#slots.size;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const job of this.#queue.splice(0)) this.#settle(job, reply('internal', 'the WASM pool was shut down before the call ran', 0));
    for (const slot of [...this.#slots]) {
      if (slot.job) this.#settle(slot.job, reply('internal', 'the WASM pool was shut down during the call', 0));
      this.#retire(slot);
    }
  }

  async #check(bytes: Uint8Array): Promise<Result<Uint8Array> & { digest: string }> {
    let digestPromise = this.#digests.get(bytes);
    if (!digestPromise) {
      digestPromise = this.#options.sha256(bytes);
      this.#digests.set(bytes, digestPromise);
    }
    const digest = await digestPromise;
    let entry = this.#checked.get(digest);
    if (entry) this.#checked.delete(digest);
    else {
      const checked = validateWasmBinary(bytes, { memoryPagesMax: LIMITS.wasmMemoryPagesCeiling, exports: [] });
      entry = checked.ok ? ok(bytes.slice()) : checked;
    }
    this.#checked.set(digest, entry);
    while (this.#checked.size > 64) this.#checked.delete(this.#checked.keys().next().value as string);
    return { ...entry, digest };
  }

  #spawn(): void {
    const worker = this.#options.startWorker();
    const slot: Slot = { worker, known: new Set(), ready: false, retired: false };
    this.#slots.add(slot);
    this.started++;
    worker.onmessage = (event) => this.#onMessage(slot, event.data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.#onExit(slot, `the WASM worker failed: ${event.message || 'unknown error'}`);
    };
  }

  #onMessage(slot: Slot, raw: unknown): void {
    if (slot.retired) return;
    const parsed = WorkerReplySchema.safeParse(raw);
    if (!parsed.success) {
      if (slot.job) this.#settle(slot.job, reply('internal', 'the WASM worker sent a malformed reply', 0));
      this.#replace(slot);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'ready') {
      slot.ready = true;
      this.#startFailures = 0;
      this.#pump();
      return;
    }
    const job = slot.job;
    if (!job || msg.id !== job.id) return;
    if (msg.type === 'missing') {
      this.#post(slot, job, true);
      return;
    }
    slot.job = undefined;
    this.#settle(job, msg.ok ? { ok: true, value: msg.value, runMs: msg.runMs } : reply(msg.code, msg.message, msg.runMs));
    this.#pump();
  }

  #onExit(slot: Slot, why: string): void {
    if (slot.retired) return;
    if (!slot.ready) this.#startFailures++;
    if (slot.job) this.#settle(slot.job, reply('internal', why, 0));
    if (this.#startFailures >= MAX_START_FAILURES) {
      this.#broken = `WASM workers fail to start: ${why}`;
      for (const job of this.#queue.splice(0)) this.#settle(job, reply('internal', this.#broken, 0));
      this.#retire(slot);
      return;
    }
    this.#replace(slot);
  }

  #pump(): void {
    if (this.#disposed) return;
    for (const slot of this.#slots) {
      if (!this.#queue.length) return;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.#queue.shift() as Job;
      slot.job = job;
      job.slot = slot;
      this.#post(slot, job, !slot.known.has(job.digest));
      const { timeoutMs } = job.request;
      job.timer = setTimeout(() => {
        this.#settle(job, reply('wasm-timeout', `\`${job.request.exportName}\` ran longer than its ${timeoutMs} ms limit and was stopped`, timeoutMs));
        this.#replace(slot);
      }, timeoutMs);
    }
  }

  #post(slot: Slot, job: Job, withModule: boolean): void {
    slot.known.add(job.digest);
    slot.worker.postMessage({ type: 'call', id: job.id, digest: job.digest, exportName: job.request.exportName, args: [...job.request.args], ...(withModule ? { bytes: job.bytes.slice().buffer } : {}) });
  }

  #abortJob(job: Job): void {
    if (job.settled) return;
    const at = this.#queue.indexOf(job);
    if (at >= 0) this.#queue.splice(at, 1);
    const running = job.slot && job.slot.job === job ? job.slot : undefined;
    this.#settle(job, aborted());
    if (running) this.#replace(running);
  }

  #settle(job: Job, result: WasmPoolReply): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    job.request.signal?.removeEventListener('abort', job.onAbort);
    if (job.slot && job.slot.job === job) job.slot.job = undefined;
    job.resolve(result);
  }

  #replace(slot: Slot): void {
    if (slot.retired) return;
    this.#retire(slot);
    this.replaced++;
    if (!this.#disposed && !this.#broken) this.#spawn();
    this.#pump();
  }

  #retire(slot: Slot): void {
    if (slot.retired) return;
    slot.retired = true;
    this.#slots.delete(slot);
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
  }
}

function reply(code: ErrorCode, message: string, runMs: number): WasmPoolReply {
  return { ...fail(code, message), runMs };
}

function aborted(): WasmPoolReply {
  return reply('timeout', 'the run ended before the WASM call finished', 0);
}
