// The sandbox kernel: one invocation of a Code node's code in a fresh quickjs-ng runtime and
// context. It is environment-neutral — the engine, the clock, the timer and the host side of
// capability and WASM calls are injected as powers — so the same kernel runs in a Node worker
// thread and in a browser Web Worker. This file holds the order of events; the parts live in
// host-bridge.ts (host functions and grants), module-loader.ts (the import boundary), job-loop.ts
// (promises, deadline, result) and run-state.ts (what the run records).
//
// Order of events, which is the security argument:
//   1. fresh runtime (64 MB, 512 KB stack, deadline interrupt) and context;
//   2. the guest prelude hardens the global object and captures the bridge (before any module);
//   3. inputs are bound; the loader is installed over the run's resolution only;
//   4. the entry module evaluates: declared modules first (they see the hardened world), then the
//      entry body, which deletes the WASM bridge binding before the user's IIFE starts;
//   5. the pending-job loop drives promises, waiting on host calls when the guest is idle;
//   6. the run's scope frees every handle, the context and the runtime, in reverse order.

import { Scope, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { LIMITS } from '../protocol/limits.ts';
import type { KernelRunRequest, RunLog, RunResult } from '../protocol/run.ts';
import { bytesReplacer } from './base64.ts';
import { buildEntryModule, ENTRY_MODULE_NAME, type EntryModule } from './entry-transform.ts';
import { PRELUDE_SCRIPT_NAME, guestPreludeSource } from './guest-prelude.ts';
import type { LoaderGraph } from './loader-policy.ts';
import { classifyGuestError, type GuestErrorInfo } from './guest-errors.ts';
import { installHostBridge, type HostCall } from './host-bridge.ts';
import { RESULT_TOO_DEEP, runJobLoop, type Timer } from './job-loop.ts';
import { DENIED_PREFIX, installModuleLoader } from './module-loader.ts';
import { RunState, type Outcome } from './run-state.ts';
import { WASM_BRIDGE_MODULE_ID } from '../protocol/wasm-bridge.ts';
import { wasmBridgeModuleSource } from '../packs/wasm-facade.ts';

export { UNKNOWN_CALLER } from './host-bridge.ts';
export { timeoutMessage } from './job-loop.ts';

export interface KernelPowers {
  /**
   * The quickjs-ng engine instance. Give each run one no other run has used (engine-supply.ts):
   * a new runtime does not clear what earlier runs left in the instance's memory.
   */
  readonly engine: QuickJSWASMModule;
  /** Milliseconds, monotonic enough for deadlines. */
  readonly now: () => number;
  /**
   * Start a one-shot timer of `ms` milliseconds; returns what cancels it. The run's deadline
   * while it waits on host calls; injected like the clock, so the kernel reaches for no global.
   */
  readonly timer: Timer;
  /**
   * The host side of capability and WASM calls. Must resolve (never reject) with a tagged result.
   * Grants are checked by the kernel before this is called; handlers check their own parameters.
   */
  readonly hostCall: HostCall;
  /**
   * Optional: block the thread for at most `ms` until a host call in flight may have been
   * answered, delivering what arrived (its promises settle in the microtasks that follow); true
   * when something was delivered. Called only while the guest has nothing to run, so a host whose
   * answers can be awaited on a futex (the Node worker's WASM lanes) skips an event-loop wake-up.
   */
  readonly block?: (ms: number) => boolean;
  /**
   * Optional: told of each console entry the run keeps, as it is kept. A host that may have to
   * terminate the thread mid-run (a watchdog) streams them out, so a run it stops still has them.
   */
  readonly onLog?: (entry: RunLog) => void;
  /**
   * Optional: called at each interrupt poll while guest bytecode runs (about every 10k
   * instructions). A host that schedules runs may block here to hold a long run back while
   * shorter ones use the cores; it then keeps the held time out of `now`, so holding a run never
   * changes its result.
   */
  readonly checkpoint?: () => void;
}

export interface KernelOutcome {
  readonly result: RunResult;
  /** False when the engine misbehaved on the host side: the caller must not use this engine again. */
  readonly healthy: boolean;
}

/** Run one invocation. Never throws for guest behaviour; engine trouble comes back as `healthy: false`. */
export async function runKernel(request: KernelRunRequest, powers: KernelPowers): Promise<KernelOutcome> {
  const started = powers.now();
  const state = new RunState(powers.onLog);
  const finish = (result: Outcome, healthy = true): KernelOutcome => {
    state.closed = true;
    const full: RunResult = { ...result, logs: state.logs, receipt: state.receipt(powers.now() - started) };
    return { result: full, healthy };
  };

  for (const id of Object.keys(request.modules)) {
    // "sandbox:" names the kernel's own code (entry, prelude, bridges): a module under one would be skipped or misnamed as a caller.
    if (id.startsWith('sandbox:') || id.startsWith(DENIED_PREFIX)) {
      return finish({ ok: false, code: 'invalid-data', message: `The run's resolution uses the reserved module id ${JSON.stringify(id)}.` });
    }
  }
  const entry = buildEntryModule(request.code);
  if (!entry.ok) return finish({ ok: false, code: entry.code, message: entry.message });

  // Everything the engine hands out for this run is managed here; the scope frees it in reverse
  // order (handles, unanswered host calls, context, runtime), so nothing is disposed by hand.
  const scope = new Scope();
  let outcome: Outcome;
  try {
    const runtime = scope.manage(powers.engine.newRuntime());
    runtime.setMemoryLimit(LIMITS.guestMemoryBytes);
    runtime.setMaxStackSize(LIMITS.guestStackBytes);
    const ctx = scope.manage(runtime.newContext());
    outcome = await evaluate({ ctx, runtime, scope, request, entry: entry.value, state, powers });
  } catch (error) {
    // The host's own stack can run out inside the engine before the guest stack limit trips (a
    // browser Web Worker's stack is smaller than a Node worker's, measured): that is still the
    // guest recursing too deeply. The engine was unwound mid-call, so freeing its runtime would
    // trip its own assertions (measured: an abort); it is retired whole, its scope left unfreed.
    if (error instanceof RangeError && /maximum call stack/i.test(error.message)) {
      return finish(
        state.serializingResult ? RESULT_TOO_DEEP : { ok: false, code: 'stack-overflow', message: 'The code recursed too deeply and was stopped.' },
        false,
      );
    }
    outcome = { ok: false, code: 'sandbox-crashed', message: `The sandbox engine failed: ${error instanceof Error ? error.message : String(error)}` };
    return finish(outcome, dispose(scope, state) && false);
  }
  return finish(outcome, dispose(scope, state));
}

/** Free the run; false when the runtime could not be freed cleanly (the engine is then suspect). */
function dispose(scope: Scope, state: RunState): boolean {
  state.closed = true;
  try {
    scope.dispose();
    return true;
  } catch {
    // The result stands, but the caller must retire this thread's engine.
    return false;
  }
}

interface Evaluation {
  readonly ctx: QuickJSContext;
  readonly runtime: QuickJSRuntime;
  readonly scope: Scope;
  readonly request: KernelRunRequest;
  readonly entry: EntryModule;
  readonly state: RunState;
  readonly powers: KernelPowers;
}

async function evaluate({ ctx, runtime, scope, request, entry, state, powers }: Evaluation): Promise<Outcome> {
  const graph: LoaderGraph = { entries: request.entries, modules: request.modules };
  const withWasm = Object.values(request.modules).some((m) => m.kind === 'wasm');

  // Host functions first: the prelude captures and deletes them.
  const bridge = installHostBridge(ctx, scope, { request, graph, withWasm, state, hostCall: powers.hostCall });

  // --- prelude: hardening before anything else evaluates -------------------------------------------
  const prelude = ctx.evalCode(guestPreludeSource(withWasm), PRELUDE_SCRIPT_NAME, { type: 'global', strict: true });
  if (prelude.error) {
    const info = ctx.dump(prelude.error) as unknown;
    prelude.error.dispose();
    throw new Error(`the guest prelude failed: ${JSON.stringify(info)}`);
  }
  const helpers = scope.manage(prelude.value);
  const serialize = scope.manage(ctx.getProp(helpers, 'serialize'));
  const parse = scope.manage(ctx.getProp(helpers, 'parse'));
  bridge.attach({ deliver: scope.manage(ctx.getProp(helpers, 'deliver')), caller: scope.manage(ctx.getProp(helpers, 'caller')) });
  if (withWasm) {
    // The bridge module takes the prelude's one-shot WASM binding now, before any pack module
    // evaluates; facades import this instance (the engine keeps evaluated modules by name).
    const wasmBridge = ctx.evalCode(wasmBridgeModuleSource(), WASM_BRIDGE_MODULE_ID, { type: 'module' });
    if (wasmBridge.error) {
      const info = ctx.dump(wasmBridge.error) as unknown;
      wasmBridge.error.dispose();
      throw new Error(`the WASM bridge module failed: ${JSON.stringify(info)}`);
    }
    wasmBridge.value.dispose();
  }

  // The deadline covers everything guest-controlled (inputs, modules, the node's code); the
  // prelude above is ours and runs before the clock starts.
  const deadline = powers.now() + request.timeoutMs;
  const checkpoint = powers.checkpoint;
  runtime.setInterruptHandler(() => {
    checkpoint?.();
    if (powers.now() > deadline) state.interrupted = true;
    return state.interrupted;
  });

  for (const [name, value] of Object.entries(request.inputs)) {
    const text = ctx.newString(JSON.stringify(value === undefined ? null : value, bytesReplacer));
    const parsed = ctx.callFunction(parse, ctx.undefined, text);
    text.dispose();
    if (parsed.error) {
      parsed.error.dispose();
      return { ok: false, code: 'invalid-data', message: `Input ${name} could not be passed into the sandbox.` };
    }
    ctx.setProp(ctx.global, name, parsed.value);
    parsed.value.dispose();
  }

  installModuleLoader(runtime, request, graph, withWasm, state);

  const failure = (handle: QuickJSHandle): Outcome => {
    const info = ctx.dump(handle) as GuestErrorInfo;
    handle.dispose();
    return classifyGuestError(info, { interrupted: state.interrupted, denials: state.denialsByReason, entry, graph, timeoutMs: request.timeoutMs });
  };

  const evaluated = ctx.evalCode(entry.source, ENTRY_MODULE_NAME, { type: 'module' });
  if (evaluated.error) return failure(evaluated.error);
  const promise = scope.manage(evaluated.value);
  return runJobLoop({
    ctx,
    runtime,
    scope,
    state,
    promise,
    serialize,
    deadline,
    timeoutMs: request.timeoutMs,
    now: powers.now,
    timer: powers.timer,
    block: powers.block,
    failure,
  });
}
