// The sandbox kernel: one invocation of a Code node's code in a quickjs-ng runtime and context no
// run has touched (sandbox.ts). It is environment-neutral — the engine, the clock, the timer and
// the host side of capability and WASM calls are injected as powers — so the same kernel runs in a
// Node worker thread and in a browser Web Worker. This file holds the order of events, which is
// the security argument (spelled out on `runKernel`); the parts live in sandbox.ts (the sandbox and
// its lifecycle), host-bridge.ts (host functions and grants), module-loader.ts (the import
// boundary), job-loop.ts (promises, deadline, result) and run-state.ts (what the run records).

import type { QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { LIMITS } from '../../protocol/limits.ts';
import { NO_GRANTS, runNeedsWasm, type KernelRunRequest, type RunLog, type RunResult } from '../../protocol/run.ts';
import { bytesReplacer } from './base64.ts';
import { buildEntryModule, ENTRY_MODULE_NAME, type EntryModule } from './entry-transform.ts';
import { decideImport, type LoaderGraph } from './loader-policy.ts';
import { classifyGuestError, type GuestErrorInfo } from './guest-errors.ts';
import { webPartsNamedIn } from './guest-web.ts';
import type { HostCall, HostCallNow } from './host-bridge.ts';
import { RESULT_TOO_DEEP, runJobLoop, runJobLoopNow, WOULD_WAIT, type JobLoopRun, type Timer } from './job-loop.ts';
import { DENIED_PREFIX, installModuleLoader } from './module-loader.ts';
import { planIsolation, startIsolation } from './isolation.ts';
import { RunState, type Outcome } from './run-state.ts';
import { IMAGE_ENTRY_NAME, imageEntrySource, type ImagePlan, type ImageRecord } from '../supply/module-image.ts';
import { prepareSandbox, warmGuest, type Sandbox, type SandboxLease } from './sandbox.ts';

export { UNKNOWN_CALLER } from './host-bridge.ts';
export { runNeedsWasm } from '../../protocol/run.ts';
export { timeoutMessage } from './job-loop.ts';

export interface KernelPowers {
  /**
   * The quickjs-ng engine instance. Give each run one no other run has used (the admission
   * probe's EngineSupply): a new runtime does not clear what earlier runs left in its memory.
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
   * Optional, for a run that never waits (a nested run, `runPreparedNow`): answers a WASM call
   * before it returns — the host blocks for its lane's reply — or undefined when it cannot, which
   * gives the run up as `hostCall` does there. The answer reaches the guest at the job loop's next
   * turn, as an awaited one would.
   */
  readonly hostCallNow?: HostCallNow;
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
   * changes its result. Returning true stops the run as its deadline would (a host that gives
   * the run up — a nested run past its budget, hosting/kernel-worker-loop.ts — discards its outcome).
   */
  readonly checkpoint?: () => boolean | void;
}

export interface KernelOutcome {
  readonly result: RunResult;
  /** False when the engine misbehaved on the host side: the caller must not use this engine again. */
  readonly healthy: boolean;
  /** `runPreparedNow` only: the run stopped where it would have waited on a host answer (its result is not its own: discard it). */
  readonly wouldWait?: true;
}

/** What a run on a prepared sandbox needs: the kernel's powers less the engine (the sandbox has one). */
export type RunPowers = Omit<KernelPowers, 'engine'>;

/** Why a module set was not evaluated into an image (its runs then evaluate it themselves). */
export interface ImageRefusal {
  readonly ok: false;
  readonly reason: string;
}

/**
 * Evaluate a module set into a sandbox no run has used, for an image (module-image.ts): no run is
 * bound (any host call refuses, and the set is refused), no inputs are set, and the evaluation
 * must settle within `budgetMs` on `now` without a host answer. On success the sandbox holds the
 * set, its loader and interrupt handler are removed, and it serves that set's runs (`Sandbox.fits`).
 * On a refusal it holds a partial state: free it, never use it.
 */
export function evaluateImageInto(
  sandbox: Sandbox,
  plan: ImagePlan,
  now: () => number,
  budgetMs: number,
): { readonly ok: true; readonly record: ImageRecord } | ImageRefusal {
  const lease = sandbox.beginImage();
  const { ctx, runtime, scope } = lease;
  const state = new RunState(undefined);
  let asked = false;
  const request: KernelRunRequest = { code: '', entries: {}, modules: plan.modules, inputs: {}, grants: NO_GRANTS, timeoutMs: LIMITS.guestTimeoutMs };
  const graph: LoaderGraph = { entries: {}, modules: plan.modules };
  const noHost: HostCall = () => {
    asked = true;
    return Promise.resolve({ ok: false, code: 'capability-denied', message: 'Module initialisation has no capabilities.' });
  };
  const imaging = { drewRandom: false };
  lease.bridge.bind({ request, graph, state, now, hostCall: noHost, imaging }, scope);
  const imports = new Map<string, string[]>();
  let denied: string | undefined;
  runtime.setModuleLoader(
    (name) => (Object.hasOwn(plan.modules, name) ? plan.modules[name]!.source : { error: new Error(`not a module of the set: ${name}`) }),
    (base, name) => {
      if (base === IMAGE_ENTRY_NAME) return plan.top.includes(name) ? name : `${DENIED_PREFIX}image`;
      const decision = decideImport(graph, base, name);
      if (!decision.ok) {
        denied ??= decision.message;
        return `${DENIED_PREFIX}image`;
      }
      let named = imports.get(base);
      if (!named) imports.set(base, (named = []));
      if (!named.includes(decision.moduleId)) named.push(decision.moduleId);
      return decision.moduleId;
    },
  );
  const deadline = now() + budgetMs;
  runtime.setInterruptHandler(() => now() > deadline);
  // The web parts the set's sources name, compiled into its image before its modules run.
  warmGuest(ctx, lease.warm, webPartsNamedIn(Object.values(plan.modules).map((m) => m.source)));
  const refuse = (reason: string): ImageRefusal => ({
    ok: false,
    reason: imaging.drewRandom ? 'its initialisation draws random bytes from crypto, which each run must draw for itself' : reason,
  });
  try {
    const evaluated = ctx.evalCode(imageEntrySource(plan), IMAGE_ENTRY_NAME, { type: 'module' });
    if (evaluated.error) {
      const info = ctx.dump(evaluated.error) as { message?: unknown } | undefined;
      evaluated.error.dispose();
      return refuse(denied ?? `its initialisation failed: ${String(info?.message ?? 'error')}`);
    }
    const promise = scope.manage(evaluated.value);
    for (;;) {
      const settled = ctx.getPromiseState(promise);
      if (settled.type === 'fulfilled') {
        settled.value.dispose();
        break;
      }
      if (settled.type === 'rejected') {
        settled.error.dispose();
        return refuse('its initialisation failed');
      }
      if (!runtime.hasPendingJob()) return refuse('its initialisation waits on something only a run can give');
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        jobs.error.dispose();
        return refuse('its initialisation failed');
      }
      if (now() > deadline) return refuse(`its initialisation ran past ${budgetMs} ms`);
    }
    if (imaging.drewRandom) return refuse('its initialisation draws random bytes from crypto');
    if (asked || state.calls.length > 0 || state.denied.length > 0) return refuse('its initialisation asks for a capability, WASM or the host');
    if (denied) return refuse(denied);
    if (state.logs.length >= LIMITS.consoleEntries) return refuse('its initialisation logs past the console limit');
    const record: ImageRecord = { key: plan.key, modules: new Map(Object.entries(plan.modules)), imports, logs: [...state.logs] };
    if (!lease.keep(record)) return refuse('the sandbox could not be made ready after the evaluation');
    return { ok: true, record };
  } catch (error) {
    sandbox.engineFailed('tainted');
    return refuse(`the engine failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Run one invocation on a fresh engine's new sandbox, then free it. Never throws for guest behaviour.
 *
 * Every run follows this order of events, which is the security argument (a worker takes the same
 * steps apart: `prepareSandbox` while idle, `runPrepared`, then `Sandbox.endRun`):
 *   1. a runtime (64 MB, 512 KB stack) and context on an engine instance whose memory holds
 *      nothing of any run: a new instance, or one restored to its snapshot (supply/sandbox-supply.ts);
 *   2. the guest prelude hardens the global object and captures the bridge (before any module),
 *      and the kernel's own modules take their one-shot bindings (inputs, the WASM bridge);
 *      steps 1–2 know nothing of the run, so a worker does them while idle (`prepareSandbox`);
 *      a module set may then be evaluated into the sandbox, with no run bound, for an image of
 *      it (`evaluateImageInto`, supply/module-image.ts);
 *   3. the run is bound to the bridge, the deadline interrupt set, its inputs made, and the loader
 *      installed over the run's resolution only;
 *   4. the entry module evaluates: declared modules first (they see the hardened world and no
 *      inputs; in an image they were evaluated already), then the entry body, which binds the
 *      inputs and deletes the WASM bridge binding before the user's IIFE starts;
 *   5. the pending-job loop drives promises, waiting on host calls when the guest is idle;
 *   6. the run's scope frees its handles (`Sandbox.endRun`, after the answer is sent), and the
 *      supply restores the engine's memory to its snapshot, or frees the whole sandbox.
 */
export async function runKernel(request: KernelRunRequest, powers: KernelPowers): Promise<KernelOutcome> {
  let sandbox: Sandbox;
  try {
    sandbox = prepareSandbox(powers.engine, runNeedsWasm(request));
  } catch (error) {
    const message = `The sandbox engine failed: ${error instanceof Error ? error.message : String(error)}`;
    return { result: { ok: false, code: 'sandbox-crashed', message, logs: [], receipt: { wallMs: 0, modules: [], calls: [], denied: [] } }, healthy: false };
  }
  const outcome = await runPrepared(sandbox, request, powers);
  const freed = sandbox.dispose();
  return freed ? outcome : { ...outcome, healthy: false };
}

/**
 * Steps 3–5 of the order (`runKernel`) on a fresh or compiled sandbox (a misuse throws
 * errors.ts's errors). Afterwards the caller ends the run (`Sandbox.endRun`, then the supply
 * restores it) or frees the sandbox (`Sandbox.dispose`); a worker does either after posting the
 * result, off the run's critical path.
 */
export async function runPrepared(sandbox: Sandbox, request: KernelRunRequest, powers: RunPowers): Promise<KernelOutcome> {
  const run = beginRun(sandbox, request, powers, runJobLoop);
  if (!('outcome' in run)) return run;
  let outcome: Outcome;
  try {
    outcome = await run.outcome;
  } catch (error) {
    return run.fail(error);
  }
  return run.end(outcome);
}

/**
 * `runPrepared` for a run that never waits, to its end before this returns: a nested run
 * (hosting/kernel-worker-loop.ts), whose host calls are answered at once (`hostCallNow`) or give
 * the run up (its `checkpoint` then returns true); where the run would still wait, it ends with
 * `wouldWait` set, an outcome its host discards.
 */
export function runPreparedNow(sandbox: Sandbox, request: KernelRunRequest, powers: RunPowers): KernelOutcome {
  const run = beginRun(sandbox, request, powers, runJobLoopNow);
  if (!('outcome' in run)) return run;
  try {
    const ended = run.end(run.outcome);
    return run.outcome === WOULD_WAIT ? { ...ended, wouldWait: true } : ended;
  } catch (error) {
    return run.fail(error);
  }
}

interface StartedRun<O> {
  readonly outcome: O | Outcome;
  /** The run's answer from its outcome. */
  end(outcome: Outcome): KernelOutcome;
  /** The run's answer when the engine threw on the host side. */
  fail(error: unknown): KernelOutcome;
}

/** Steps 3–4 and the start of 5: the run's answer at once when it cannot start, else its outcome as `drive` yields it. */
function beginRun<O extends Outcome | Promise<Outcome>>(
  sandbox: Sandbox,
  request: KernelRunRequest,
  powers: RunPowers,
  drive: (run: JobLoopRun) => O,
): StartedRun<O> | KernelOutcome {
  // Misuse (a used, mismatched or WASM-less sandbox) throws here, before anything runs.
  const lease = sandbox.beginRun(request);
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

  const fail = (error: unknown): KernelOutcome => {
    // The host's own stack can run out inside the engine before the guest stack limit trips (a
    // browser Web Worker's stack is smaller than a Node worker's, measured): that is still the
    // guest recursing too deeply. The engine was unwound mid-call, so freeing its runtime would
    // trip its own assertions (measured: an abort); it is retired whole, its scope left unfreed.
    if (error instanceof RangeError && /maximum call stack/i.test(error.message)) {
      sandbox.engineFailed('broken');
      return finish(
        state.serializingResult ? RESULT_TOO_DEEP : { ok: false, code: 'stack-overflow', message: 'The code recursed too deeply and was stopped.' },
        false,
      );
    }
    sandbox.engineFailed('tainted');
    return finish(
      { ok: false, code: 'sandbox-crashed', message: `The sandbox engine failed: ${error instanceof Error ? error.message : String(error)}` },
      false,
    );
  };
  try {
    const outcome = evaluate({ lease, request, entry: entry.value, state, powers }, drive);
    // The run is over once its outcome is: late host answers find it closed and touch nothing.
    return { outcome, end: (result) => finish(result), fail };
  } catch (error) {
    return fail(error);
  }
}

interface Evaluation {
  /** The sandbox's parts, and the run's scope: every handle taken for the run is freed with it. */
  readonly lease: SandboxLease;
  readonly request: KernelRunRequest;
  readonly entry: EntryModule;
  readonly state: RunState;
  readonly powers: RunPowers;
}

function evaluate<O extends Outcome | Promise<Outcome>>({ lease, request, entry, state, powers }: Evaluation, drive: (run: JobLoopRun) => O): O | Outcome {
  const { ctx, runtime, serialize, parse, scope } = lease;
  const graph: LoaderGraph = { entries: request.entries, modules: request.modules };
  let bindInputs: () => void = () => undefined;
  lease.bridge.bind(
    {
      request,
      graph,
      state,
      hostCall: powers.hostCall,
      ...(powers.hostCallNow ? { hostCallNow: powers.hostCallNow } : {}),
      now: powers.now,
      bindInputs: () => bindInputs(),
    },
    scope,
  );
  // The deadline covers everything guest-controlled (inputs, modules, the node's code); the
  // prelude above is ours and runs before the clock starts.
  const deadline = powers.now() + request.timeoutMs;
  const checkpoint = powers.checkpoint;
  runtime.setInterruptHandler(() => {
    if (checkpoint?.() === true || powers.now() > deadline) state.interrupted = true;
    return state.interrupted;
  });

  // Inputs are made now and bound by the entry itself, after every import has evaluated (the entry
  // calls the inputs module's bind first): no module's initialisation sees them, whether it runs
  // here or was evaluated into the sandbox's image (module-image.ts).
  const inputs: [string, QuickJSHandle][] = [];
  for (const [name, value] of Object.entries(request.inputs)) {
    const text = ctx.newString(JSON.stringify(value === undefined ? null : value, bytesReplacer));
    const parsed = ctx.callFunction(parse, ctx.undefined, text);
    text.dispose();
    if (parsed.error) {
      parsed.error.dispose();
      return { ok: false, code: 'invalid-data', message: `Input ${name} could not be passed into the sandbox.` };
    }
    inputs.push([name, scope.manage(parsed.value)]);
  }
  bindInputs = () => {
    for (const [name, handle] of inputs) ctx.setProp(ctx.global, name, handle);
    inputs.length = 0;
  };

  // What the image's evaluation logged, where evaluating the modules here would have logged it.
  for (const entry of lease.image?.logs ?? []) state.log(entry.level, entry.text);
  const isolation = planIsolation(request);
  if (isolation && !isolation.ok) return isolation;
  installModuleLoader(runtime, request, graph, state, lease.image, isolation?.routing);
  if (isolation) {
    // Each isolated module in a context of its own, and its facade in the node's, before the node's code.
    const failed = startIsolation(
      {
        runtime,
        ctx,
        helpers: lease.copy,
        scope,
        request,
        graph,
        state,
        withWasm: runNeedsWasm(request),
        hostCall: powers.hostCall,
        ...(powers.hostCallNow ? { hostCallNow: powers.hostCallNow } : {}),
        now: powers.now,
      },
      isolation,
    );
    if (failed) return failed;
  }

  const failure = (handle: QuickJSHandle): Outcome => {
    const info = ctx.dump(handle) as GuestErrorInfo;
    handle.dispose();
    return classifyGuestError(info, { interrupted: state.interrupted, denials: state.denialsByReason, entry, graph, timeoutMs: request.timeoutMs });
  };

  const evaluated = ctx.evalCode(entry.source, ENTRY_MODULE_NAME, { type: 'module' });
  if (evaluated.error) return failure(evaluated.error);
  const promise = scope.manage(evaluated.value);
  return drive({
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
