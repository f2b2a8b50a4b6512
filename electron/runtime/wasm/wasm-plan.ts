// A run's WASM, as it travels to the sandbox worker that runs it. A guest's WASM call is answered
// inside that worker: the per-run dispatcher (the same engine-neutral checks and budgets as
// everywhere, shared/sandbox/wasm/wasm-dispatcher.ts) runs next to the kernel, and calls go straight
// to the worker's own WASM lanes (WasmLanes) — no hop through the main thread.
//
// Invariants: the dispatcher is built only from this plan, which the main thread builds only from
// the catalog's resolution, so a run can reach exactly its declared modules. Compile once per
// process still holds: the main thread compiles each binary once (its shared `WasmModuleCache`)
// and the plan carries the compiled `WebAssembly.Module`, which a worker receives by structured
// clone without compiling again.

import { z } from 'zod';
import { getPriority, setPriority } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { SandboxModuleResolutionOk } from '../../../shared/protocol/catalog.ts';
import { ErrorCodeSchema } from '../../../shared/protocol/codes.ts';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { WASM_TYPES, WasmBudgetsSchema } from '../../../shared/protocol/manifest.ts';
import { HOST_MEMORY_MAX_PAGES } from '../../../shared/packs/wasm-memory-import.ts';
import { fail, ok, type Result } from '../../../shared/protocol/result.ts';
import {
  createWasmDispatcher,
  NO_FREE_LANE,
  type DispatcherModules,
  type WasmDispatcher,
  type WasmPoolReply,
  type WasmPoolRequest,
} from '../../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { WasmPoolCore, type WasmPoolWorker, type WasmPoolWorkerHooks } from '../../../shared/sandbox/wasm/wasm-pool-core.ts';
import type { CompiledModule, WasmModuleCache } from './module-cache.ts';
import { WASM_WORKER_OPTIONS, WASM_WORKER_URL } from './worker-protocol.ts';

const WasmExportSignatureSchema = z
  .object({
    wasm: z.string().min(1).max(128),
    as: z.string().min(1).max(128),
    params: z.array(z.enum(WASM_TYPES)).max(LIMITS.wasmMaxParams),
    results: z.array(z.enum(WASM_TYPES)).max(LIMITS.wasmMaxResults),
    post: z.string().startsWith('cabi_post_').max(140).optional(),
  })
  .strict();

/** A compiled module, or why the engine could not compile it (answered per call, as before). */
const CompiledSchema = z.union([
  z
    .object({
      ok: z.literal(true),
      digest: z.string().regex(/^[0-9a-f]{64}$/),
      module: z.instanceof(WebAssembly.Module),
      spare: z.boolean(),
      /** The module imports its memory from the host with these limits (wasm-memory-import.ts). */
      memory: z
        .object({ initial: z.number().int().min(0).max(HOST_MEMORY_MAX_PAGES), maximum: z.number().int().min(0).max(LIMITS.wasmMemoryPagesCeiling) })
        .strict()
        .refine((m) => m.maximum >= m.initial, 'a memory maximum below its initial size')
        .optional(),
    })
    .strict(),
  z.object({ ok: z.literal(false), code: ErrorCodeSchema, message: z.string() }).strict(),
]);

export const WasmPlanModuleSchema = z
  .object({
    moduleId: z.string().min(1),
    displayName: z.string(),
    exports: z.array(WasmExportSignatureSchema),
    memoryPagesMax: z.number().int().min(0).max(LIMITS.wasmMemoryPagesCeiling),
    budgets: WasmBudgetsSchema,
    compiled: CompiledSchema,
  })
  .strict();

export const WasmPlanSchema = z.object({ modules: z.array(WasmPlanModuleSchema) }).strict();
export type WasmPlan = z.infer<typeof WasmPlanSchema>;

/**
 * On the main thread: the run's WASM modules, each compiled once per process through `cache`.
 * Trust is unchanged by answering calls in the sandbox worker: the dispatcher is host code outside
 * the guest engine, like the kernel's capability checks in the same thread, and it is built only
 * from this plan.
 */
export async function buildWasmPlan(resolution: Pick<SandboxModuleResolutionOk, 'modules'>, cache: WasmModuleCache): Promise<WasmPlan> {
  const modules: WasmPlan['modules'] = [];
  for (const mod of Object.values(resolution.modules)) {
    if (mod.kind !== 'wasm' || !mod.wasm) continue;
    const compiled = await cache.get(mod.wasm.bytes);
    modules.push({
      moduleId: mod.moduleId,
      displayName: mod.displayName,
      exports: mod.wasm.exports.map((e) => ({ wasm: e.wasm, as: e.as, params: [...e.params], results: [...e.results], ...(e.post ? { post: e.post } : {}) })),
      memoryPagesMax: mod.wasm.memoryPagesMax,
      budgets: { ...mod.wasm.budgets },
      compiled: compiled.ok
        ? {
            ok: true,
            digest: compiled.value.digest,
            module: compiled.value.module,
            spare: compiled.value.spare,
            ...(compiled.value.memory ? { memory: { ...compiled.value.memory } } : {}),
          }
        : { ok: false, code: compiled.code, message: compiled.message },
    });
  }
  return { modules };
}

/**
 * A sandbox worker's signal buffer, in Int32 cells: [0] counts replies from any lane, [1] is 1
 * while this worker sleeps on [0]; lane slot s (1…LANE_SLOTS) has its call counter at [2s] and
 * its own sleeping flag at [2s+1]. A lane takes the lowest slot no lane holds; a stopped lane's
 * slot is free again only once its thread has exited (two lanes sharing a flag could each clear
 * the other's, and a call posted to a sleeping lane would then never wake it).
 */
const REPLIES = 0;
const HOST_SLEEPING = 1;
const LANE_SLOTS = 31;
/** The longest `callNow` blocks at a time before it checks the call's own limit. */
const BLOCK_SLICE_MS = 5;
/** How long `block` spins on the reply counter before sleeping on it. */
const SPIN_MS = 0.1;
/** The nice value of a lane whose call is held (the lowest priority there is). */
const HELD_NICE = 19;

/**
 * A held call (one that spins) keeps running on a core; at the lowest priority it takes only the
 * CPU nothing else wants, so ordinary runs' threads are not slowed by it (in a sandbox pool with
 * three lanes spinning on 2 cores, small WASM runs one after another: median 10–20 ms → 3–7 ms,
 * their quiet figure). Returns what restores the priority, if it could be lowered; the restore
 * answers false where raising it back is not allowed (unprivileged, RLIMIT_NICE), and the pool
 * core then retires the lane.
 */
function lowerPriority(tid: number | undefined): (() => boolean) | undefined {
  if (tid === undefined) return undefined;
  try {
    const was = getPriority(tid);
    setPriority(tid, HELD_NICE);
    return () => {
      try {
        setPriority(tid, was);
        return true;
      } catch {
        return false;
      }
    };
  } catch {
    return undefined;
  }
}

/** One lane as the pool core sees it: calls go down its port, and wake it through the signal. */
interface Lane extends WasmPoolWorker {
  readonly port: MessagePort;
  readonly hooks: WasmPoolWorkerHooks;
}

/**
 * In a sandbox worker: its WASM lanes, and a dispatcher per run over them. The scheduling
 * (timeouts that terminate and replace a lane, aborts, start failures) is the shared pool core's;
 * this adds the transport: a MessageChannel per lane plus a shared counter each side bumps and
 * `Atomics.notify`s (see wasm-worker.mjs), so `block()` can wait for a reply on a futex.
 *
 * The worker never needs a binary's bytes: the dispatcher hands each module's `bytes` to the pool
 * only as its identity, and the lanes' `prepare` maps that identity to the module the main
 * thread compiled. `prepare` answers synchronously, so a call is posted to a free lane before the
 * guest's host call returns.
 *
 * Each sandbox worker serves its run's calls on up to `LIMITS.wasmConcurrency` lanes (the run's
 * concurrency budget), started on its first WASM run and kept while used; after a few seconds
 * idle it keeps one (IDLE_RETIRE_MS), and starts more on demand. A call that spins (held past
 * HELD_AFTER_MS) gets one spare lane started beside it, so the next run on this worker, once the
 * spinning call is stopped (its run ended, or its timeout), finds a started lane: the stopped lane
 * is terminated and not replaced; meanwhile it runs at the lowest priority (`lowerPriority`).
 * Lanes end with their sandbox worker. The rules are the pool core's (wasm-pool-core.ts).
 */
export class WasmLanes {
  readonly #size: number;
  readonly #entry: URL;
  readonly #idleMs: number | undefined;
  readonly #planned = new WeakMap<Uint8Array, Result<CompiledModule>>();
  readonly #signal = new Int32Array(new SharedArrayBuffer(2 * (LANE_SLOTS + 1) * Int32Array.BYTES_PER_ELEMENT));
  readonly #lanes = new Set<Lane>();
  /** Signal slots held by lanes whose threads have not exited yet. */
  readonly #taken = new Set<number>();
  #core: WasmPoolCore<WebAssembly.Module, Lane> | undefined;

  /** `idleMs`: how long a lane beyond the kept one idles before it retires (default: the core's). */
  constructor(size: number = LIMITS.wasmConcurrency, entry: URL = WASM_WORKER_URL, idleMs?: number) {
    this.#size = size;
    this.#entry = entry;
    this.#idleMs = idleMs;
  }

  /**
   * Starts the kept lane now rather than on the first run with WASM: a worker that runs nested
   * runs answers their WASM calls only on a lane that is ready (`callNow`), and its long run may
   * be one that never calls WASM.
   */
  warm(): void {
    this.#coreNow();
  }

  /** The dispatcher for one run; close it when the run ends. */
  dispatcherFor(plan: WasmPlan): WasmDispatcher {
    const core = this.#coreNow();
    const modules: Record<string, DispatcherModules[string]> = {};
    for (const m of plan.modules) {
      const identity = new Uint8Array(0);
      this.#planned.set(
        identity,
        m.compiled.ok
          ? ok({ digest: m.compiled.digest, module: m.compiled.module, spare: m.compiled.spare, ...(m.compiled.memory ? { memory: m.compiled.memory } : {}) })
          : fail(m.compiled.code, m.compiled.message),
      );
      modules[m.moduleId] = {
        moduleId: m.moduleId,
        kind: 'wasm',
        displayName: m.displayName,
        wasm: { bytes: identity, exports: m.exports, memoryPagesMax: m.memoryPagesMax, budgets: m.budgets },
      };
    }
    return createWasmDispatcher(
      { modules },
      { call: (request) => core.call(request), callNow: (request, ms, queue) => this.#callNow(core, request, ms, queue) },
    );
  }

  #coreNow(): WasmPoolCore<WebAssembly.Module, Lane> {
    return (this.#core ??= new WasmPoolCore<WebAssembly.Module, Lane>({
      size: this.#size,
      keep: 1,
      max: this.#size + 1,
      held: (_lane, tid) => lowerPriority(tid),
      ...(this.#idleMs !== undefined ? { idleMs: this.#idleMs } : {}),
      startWorker: (hooks) => this.#start(hooks),
      prepare: (bytes) => this.#planned.get(bytes) ?? fail('wasm-not-declared', 'that WASM module is not part of this run'),
      moduleFields: (module) => ({ module }),
    }));
  }

  /**
   * A call answered before this returns: posted to a free lane at once (`prepare` is synchronous),
   * then this thread blocks on the lanes' futex until its reply is delivered or `ms` pass
   * (undefined: the caller stops it through its signal). Unless `queue`, it takes only a free lane:
   * with none free it waits, within `ms`, for one that is starting (a stopped lane's replacement,
   * the spare beside held calls), and with none starting either nothing is posted. For a nested
   * run, which cannot wait long.
   *
   * This thread may not have run its event loop for a while (a nested run is answered inside a long
   * run's poll): lanes' messages are read here, and the pool's upkeep done, first. Otherwise a
   * lane started while the long run ran would never be seen ready until it ended — every nested
   * run with WASM there given back for want of a lane, for up to the long run's whole time limit
   * (bench load: ordinary runs waited 0.3–2 s so behind a CPU loop).
   */
  #callNow(
    core: WasmPoolCore<WebAssembly.Module, Lane>,
    request: WasmPoolRequest,
    ms: number,
    queue: boolean,
  ): WasmPoolReply | typeof NO_FREE_LANE | undefined {
    const until = performance.now() + ms;
    this.#drain();
    core.upkeep();
    for (;;) {
      const { ready, busy, queued, workers } = core.stats();
      if (queue || (queued === 0 && ready - busy > 0)) break;
      const left = until - performance.now();
      if (queued > 0 || workers <= ready || left <= 0) return NO_FREE_LANE;
      this.block(Math.min(left, BLOCK_SLICE_MS));
      core.upkeep();
    }
    let answer: WasmPoolReply | undefined;
    void core.call(request, (reply) => (answer = reply));
    while (answer === undefined) {
      const left = until - performance.now();
      if (left <= 0) break;
      this.block(Math.min(left, BLOCK_SLICE_MS));
      // The call's own limit, which the core's timer cannot enforce while this thread blocks.
      core.timeOutOverdue();
    }
    return answer;
  }

  /** True while a lane holds a call (posted, not yet answered). */
  get busy(): boolean {
    return (this.#core?.stats().busy ?? 0) > 0;
  }

  /**
   * Block this thread until a lane replies or `ms` pass, then deliver every reply waiting (their
   * promises settle in the microtasks that follow). For a caller with nothing else to do: its
   * event loop, timers included, does not run meanwhile. Returns whether anything was delivered.
   */
  block(ms: number): boolean {
    const signal = this.#signal;
    const seen = Atomics.load(signal, REPLIES);
    if (this.#drain()) return true;
    const start = performance.now();
    const spinUntil = start + Math.min(ms, SPIN_MS);
    for (let i = 1; Atomics.load(signal, REPLIES) === seen; i++) if ((i & 255) === 0 && performance.now() > spinUntil) break;
    const left = ms - (performance.now() - start);
    if (Atomics.load(signal, REPLIES) === seen && left > 0) {
      // The flag goes up before the wait re-checks the counter, so a reply posted meanwhile is
      // either seen by the wait or notified by its lane.
      Atomics.store(signal, HOST_SLEEPING, 1);
      Atomics.wait(signal, REPLIES, seen, left);
      Atomics.store(signal, HOST_SLEEPING, 0);
    }
    return this.#drain();
  }

  /** Lanes alive now (0 until the first run with WASM). */
  get workers(): number {
    return this.#core?.stats().workers ?? 0;
  }

  dispose(): Promise<void> {
    return this.#core?.dispose() ?? Promise.resolve();
  }

  #drain(): boolean {
    let delivered = false;
    for (const lane of [...this.#lanes]) {
      for (let next = receiveMessageOnPort(lane.port); next; next = receiveMessageOnPort(lane.port)) {
        delivered = true;
        lane.hooks.message(next.message);
      }
    }
    return delivered;
  }

  #start(hooks: WasmPoolWorkerHooks): Lane {
    let slot = 1;
    while (this.#taken.has(slot)) slot++;
    // More lanes than slots cannot be alive at once: the core starts at most `size + 1`.
    if (slot > LANE_SLOTS) throw new Error(`WasmLanes: no free signal slot (${this.#taken.size} lanes alive)`);
    this.#taken.add(slot);
    const calls = 2 * slot;
    const sleeping = calls + 1;
    const signal = this.#signal;
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(this.#entry, {
      ...WASM_WORKER_OPTIONS,
      workerData: { lane: { port: port2, signal: signal.buffer, slot } },
      transferList: [port2],
    });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // Its flag back to "awake", for the next lane that takes the slot.
      Atomics.store(signal, sleeping, 0);
      this.#taken.delete(slot);
    };
    const lane: Lane = {
      port: port1,
      hooks,
      postMessage(message: unknown) {
        port1.postMessage(message);
        Atomics.add(signal, calls, 1);
        if (Atomics.load(signal, sleeping) === 1) Atomics.notify(signal, calls);
      },
      terminate: () => worker.terminate().finally(release),
    };
    this.#lanes.add(lane);
    port1.on('message', (raw: unknown) => hooks.message(raw));
    const gone = (why: string) => {
      if (!this.#lanes.delete(lane)) return;
      port1.close();
      hooks.failed(why);
    };
    worker.on('error', (error) => gone(`the WASM worker failed: ${error.message}`));
    worker.on('exit', (code) => {
      release();
      gone(`the WASM worker stopped unexpectedly (exit code ${code})`);
    });
    return lane;
  }
}
