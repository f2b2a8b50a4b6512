// The sandbox kernel: one invocation of a Code node's code in a fresh quickjs-ng runtime and
// context. It is environment-neutral — the engine, the clock, the timer and the host side of
// capability and WASM calls are injected as powers — so the same kernel runs in a Node worker
// thread and in a browser Web Worker. This file holds the order of events; the parts live in
// host-bridge.ts (host functions and grants), module-loader.ts (the import boundary), job-loop.ts
// (promises, deadline, result) and run-state.ts (what the run records).
//
// Order of events, which is the security argument:
//   1. fresh runtime (64 MB, 512 KB stack) and context on an engine instance nobody used;
//   2. the guest prelude hardens the global object and captures the bridge (before any module),
//      and the kernel's own modules take their one-shot bindings (inputs, the WASM bridge);
//      steps 1–2 know nothing of the run, so a worker does them while idle (`prepareSandbox`);
//      a module set may then be evaluated into the sandbox, with no run bound, for an image of
//      it (`evaluateImageInto`, module-image.ts);
//   3. the run is bound to the bridge, the deadline interrupt set, its inputs made, and the loader
//      installed over the run's resolution only;
//   4. the entry module evaluates: declared modules first (they see the hardened world and no
//      inputs; in an image they were evaluated already), then the entry body, which binds the
//      inputs and deletes the WASM bridge binding before the user's IIFE starts;
//   5. the pending-job loop drives promises, waiting on host calls when the guest is idle;
//   6. the sandbox's scope frees every handle, the context and the runtime, in reverse order
//      (`disposeSandbox`; a worker does it after sending the answer) and the engine is dropped.

import { Scope, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { LIMITS } from '../protocol/limits.ts';
import { runNeedsWasm, type KernelRunRequest, type RunLog, type RunResult } from '../protocol/run.ts';
import { bytesReplacer } from './base64.ts';
import { buildEntryModule, ENTRY_MODULE_NAME, type EntryModule } from './entry-transform.ts';
import { PRELUDE_SCRIPT_NAME, guestPreludeSource } from './guest-prelude.ts';
import type { LoaderGraph } from './loader-policy.ts';
import { classifyGuestError, type GuestErrorInfo } from './guest-errors.ts';
import { webPartsNamedIn } from './guest-web.ts';
import { installHostBridge, type HostBridge, type HostCall } from './host-bridge.ts';
import { RESULT_TOO_DEEP, runJobLoop, runJobLoopNow, type JobLoopRun, type Timer } from './job-loop.ts';
import { DENIED_PREFIX, installModuleLoader } from './module-loader.ts';
import { RunState, type Outcome } from './run-state.ts';
import { fits, IMAGE_ENTRY_NAME, imageEntrySource, type ImagePlan, type ImageRecord } from './module-image.ts';
import { WASM_BRIDGE_MODULE_ID } from '../protocol/wasm-bridge.ts';
import { wasmBridgeModuleSource } from '../packs/wasm-facade.ts';
import { decideImport } from './loader-policy.ts';
import { HOST_INPUTS_GLOBAL, INPUTS_MODULE_ID } from './inputs-module.ts';
import { NO_GRANTS } from '../protocol/run.ts';

export { UNKNOWN_CALLER } from './host-bridge.ts';
export { runNeedsWasm } from '../protocol/run.ts';
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
   * changes its result. Returning true stops the run as its deadline would (a host that gives
   * the run up — a nested run past its budget, sandbox-worker.ts — discards its outcome).
   */
  readonly checkpoint?: () => boolean | void;
}

export interface KernelOutcome {
  readonly result: RunResult;
  /** False when the engine misbehaved on the host side: the caller must not use this engine again. */
  readonly healthy: boolean;
}

/** What a run on a prepared sandbox needs: the kernel's powers less the engine (the sandbox has one). */
export type RunPowers = Omit<KernelPowers, 'engine'>;

/**
 * A fresh runtime and context, hardened by the prelude and with the bridge's host functions
 * defined, waiting for exactly one run. Steps 1–2 of the order above happen here, before the run
 * is known, so a worker can build the next one while it is idle; nothing of any run has touched
 * it. `runPrepared` uses it once; `disposeSandbox` frees it (after the run's answer is sent).
 */
export interface PreparedSandbox {
  /** Whether the prelude carries the WASM bridge: a run with WASM modules needs one that does. */
  readonly withWasm: boolean;
}

interface Sandbox extends PreparedSandbox {
  /** What the sandbox itself holds: runtime, context, the prelude's helpers. */
  readonly scope: Scope;
  /** What the current run holds (its handles, unanswered host calls); freed by `endRun`. */
  runScope: Scope | undefined;
  readonly runtime: QuickJSRuntime;
  readonly ctx: QuickJSContext;
  readonly bridge: HostBridge;
  readonly serialize: QuickJSHandle;
  readonly parse: QuickJSHandle;
  /** The prelude's `warm(names)`: compiles web parts ahead (guest-web.ts), before any pack code has run. */
  readonly warm: QuickJSHandle;
  used: boolean;
  /**
   * The module set evaluated into it before any run (module-image.ts): its memory image holds
   * them, so it is kept across rewinds; only that set's runs may use the sandbox (`fitsRun`).
   */
  image: ImageRecord | undefined;
  /** The engine was unwound mid-call (a host stack overflow): freeing it would trip its assertions. */
  broken: boolean;
  /** The engine failed on the host side during the run: it may be freed, never used again. */
  tainted: boolean;
  disposed: boolean;
}

/**
 * Compile web parts (guest-web.ts) into the sandbox ahead of any run, so they are in its image: a
 * part compiled in a run is gone with the run, and URL's costs that run 10–15 ms. Done before any
 * pack code runs (a sandbox being prepared, or a set about to be evaluated into an image).
 */
function warmWebParts(ctx: QuickJSContext, warm: QuickJSHandle, names: readonly string[]): void {
  if (names.length === 0) return;
  const list = ctx.newString(names.join(' '));
  try {
    const done = ctx.callFunction(warm, ctx.undefined, list);
    if (done.error) {
      const info = ctx.dump(done.error) as unknown;
      done.error.dispose();
      throw new Error(`the web parts could not be compiled: ${JSON.stringify(info)}`);
    }
    done.value.dispose();
  } finally {
    list.dispose();
  }
}

/**
 * Steps 1–2: a fresh runtime and context on `engine`, the bridge's host functions, the prelude.
 * Throws when the engine or the prelude fails (engine trouble, never a guest's: no guest code has run).
 */
export function prepareSandbox(engine: QuickJSWASMModule, withWasm: boolean, warmWeb: readonly string[] = []): PreparedSandbox {
  const scope = new Scope();
  try {
    const runtime = scope.manage(engine.newRuntime());
    runtime.setMemoryLimit(LIMITS.guestMemoryBytes);
    runtime.setMaxStackSize(LIMITS.guestStackBytes);
    const ctx = scope.manage(runtime.newContext());
    // Host functions first: the prelude captures and deletes them.
    const bridge = installHostBridge(ctx, withWasm);
    const prelude = ctx.evalCode(guestPreludeSource(withWasm), PRELUDE_SCRIPT_NAME, { type: 'global', strict: true });
    if (prelude.error) {
      const info = ctx.dump(prelude.error) as unknown;
      prelude.error.dispose();
      throw new Error(`the guest prelude failed: ${JSON.stringify(info)}`);
    }
    const helpers = scope.manage(prelude.value);
    const serialize = scope.manage(ctx.getProp(helpers, 'serialize'));
    const parse = scope.manage(ctx.getProp(helpers, 'parse'));
    const warm = scope.manage(ctx.getProp(helpers, 'warm'));
    bridge.attach({ deliver: scope.manage(ctx.getProp(helpers, 'deliver')), caller: scope.manage(ctx.getProp(helpers, 'caller')) });
    // The kernel's own modules, before any pack: each takes its one-shot binding (inputs, and the
    // WASM bridge where there is one), so no module ever sees either.
    evaluateKernelModule(ctx, INPUTS_MODULE_ID, inputsModuleSource());
    if (withWasm) evaluateKernelModule(ctx, WASM_BRIDGE_MODULE_ID, wasmBridgeModuleSource());
    warmWebParts(ctx, warm, warmWeb);
    const sandbox: Sandbox = {
      withWasm,
      scope,
      runScope: undefined,
      runtime,
      ctx,
      bridge,
      serialize,
      parse,
      warm,
      used: false,
      image: undefined,
      broken: false,
      tainted: false,
      disposed: false,
    };
    return sandbox;
  } catch (error) {
    try {
      scope.dispose();
    } catch {
      // The engine is dropped with the error; nothing else holds it.
    }
    throw error;
  }
}

function inputsModuleSource(): string {
  return `const bind = globalThis[${JSON.stringify(HOST_INPUTS_GLOBAL)}];\ndelete globalThis[${JSON.stringify(HOST_INPUTS_GLOBAL)}];\nexport { bind };\n`;
}

/** Evaluate one of the kernel's own modules into a fresh context (engine trouble throws: no guest code has run). */
function evaluateKernelModule(ctx: QuickJSContext, name: string, source: string): void {
  const result = ctx.evalCode(source, name, { type: 'module' });
  if (result.error) {
    const info = ctx.dump(result.error) as unknown;
    result.error.dispose();
    throw new Error(`the kernel module ${name} failed: ${JSON.stringify(info)}`);
  }
  result.value.dispose();
}

/**
 * Free a prepared sandbox (used or not); false when the runtime could not be freed cleanly (the
 * engine is then suspect and must be dropped, as workers drop every engine after its run anyway).
 */
export function disposeSandbox(prepared: PreparedSandbox): boolean {
  const sandbox = prepared as Sandbox;
  if (sandbox.disposed) return !sandbox.broken;
  sandbox.disposed = true;
  // A sandbox unwound mid-call is retired whole, its scope left unfreed (see runPrepared).
  if (sandbox.broken) return false;
  try {
    sandbox.runScope?.dispose();
    sandbox.runScope = undefined;
    sandbox.scope.dispose();
    return true;
  } catch {
    return false;
  }
}

/**
 * End a run on a sandbox without freeing the sandbox: the run's handles and unanswered host calls
 * are freed and its bridge unbound. False when the sandbox must not serve again (unwound mid-call,
 * or freeing failed); it must then be disposed of or dropped. A sandbox that ends cleanly may serve
 * another run only once its engine's memory is back to the image taken before any run (see
 * engine-supply.ts `SandboxSupply`), and `rewindSandbox` has been called.
 */
export function endRun(prepared: PreparedSandbox): boolean {
  const sandbox = prepared as Sandbox;
  if (sandbox.broken || sandbox.tainted || sandbox.disposed) return false;
  try {
    sandbox.runScope?.dispose();
    sandbox.runScope = undefined;
    sandbox.bridge.unbind();
    // The run's interrupt handler and module loader go too, on both sides: the engine's memory
    // goes back to an image in which neither is set, and quickjs-emscripten only enables the
    // engine's side of a handler when its own side had none (a restored sandbox kept the JS side
    // set and the engine's off: no interrupt, no deadline, no hold, measured).
    sandbox.runtime.removeInterruptHandler();
    sandbox.runtime.removeModuleLoader();
    return true;
  } catch {
    sandbox.broken = true;
    return false;
  }
}

/**
 * Call the context's own Math.random once (its result dropped). The sandbox supply uses it before
 * any run, to find where in the engine's memory the generator's state lives and reseed it per run.
 */
export function stepRandom(prepared: PreparedSandbox): void {
  const { ctx } = prepared as Sandbox;
  const math = ctx.getProp(ctx.global, 'Math');
  const random = ctx.getProp(math, 'random');
  const result = ctx.callFunction(random, math);
  if (result.error) result.error.dispose();
  else result.value.dispose();
  random.dispose();
  math.dispose();
}

/** Mark a sandbox whose run was ended (`endRun`) and whose memory was restored as fit for one more run. */
export function rewindSandbox(prepared: PreparedSandbox): void {
  const sandbox = prepared as Sandbox;
  if (sandbox.broken || sandbox.tainted || sandbox.disposed || sandbox.runScope) throw new Error('only a sandbox whose run ended cleanly can be rewound');
  sandbox.used = false;
}

/** Why a module set was not evaluated into an image (its runs then evaluate it themselves). */
export interface ImageRefusal {
  readonly ok: false;
  readonly reason: string;
}

/**
 * Evaluate a module set into a sandbox no run has used, for an image (module-image.ts): no run is
 * bound (any host call refuses, and the set is refused), no inputs are set, and the evaluation
 * must settle within `budgetMs` on `now` without a host answer. On success the sandbox holds the
 * set, its loader and interrupt handler are removed, and it serves that set's runs (`fitsRun`).
 * On a refusal it holds a partial state: free it, never use it.
 */
export function evaluateImageInto(
  prepared: PreparedSandbox,
  plan: ImagePlan,
  now: () => number,
  budgetMs: number,
): { readonly ok: true; readonly record: ImageRecord } | ImageRefusal {
  const sandbox = prepared as Sandbox;
  if (sandbox.used || sandbox.disposed || sandbox.broken || sandbox.tainted || sandbox.runScope || sandbox.image) {
    throw new Error('an image is evaluated only into a sandbox no run has used');
  }
  sandbox.used = true;
  const { ctx, runtime } = sandbox;
  const state = new RunState(undefined);
  const scope = new Scope();
  sandbox.runScope = scope;
  let asked = false;
  const request: KernelRunRequest = { code: '', entries: {}, modules: plan.modules, inputs: {}, grants: NO_GRANTS, timeoutMs: LIMITS.guestTimeoutMs };
  const graph: LoaderGraph = { entries: {}, modules: plan.modules };
  const noHost: HostCall = () => {
    asked = true;
    return Promise.resolve({ ok: false, code: 'capability-denied', message: 'Module initialisation has no capabilities.' });
  };
  const imaging = { drewRandom: false };
  sandbox.bridge.bind({ request, graph, state, now, hostCall: noHost, imaging }, scope);
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
  warmWebParts(ctx, sandbox.warm, webPartsNamedIn(Object.values(plan.modules).map((m) => m.source)));
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
    if (!endRun(sandbox)) return refuse('the sandbox could not be made ready after the evaluation');
    sandbox.image = record;
    sandbox.used = false;
    return { ok: true, record };
  } catch (error) {
    sandbox.tainted = true;
    return refuse(`the engine failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Whether a run with `modules` may run on this sandbox: nothing evaluated into it, or only the
 * run's own modules, identical (the supply also matched the run's plan, caller included).
 */
export function fitsRun(prepared: PreparedSandbox, modules: KernelRunRequest['modules']): boolean {
  const { image } = prepared as Sandbox;
  return image === undefined || fits(image, modules);
}

/** The module set a sandbox holds evaluated, if any. */
export function imageOfSandbox(prepared: PreparedSandbox): ImageRecord | undefined {
  return (prepared as Sandbox).image;
}

/** Run one invocation on a fresh engine's new sandbox, then free it. Never throws for guest behaviour. */
export async function runKernel(request: KernelRunRequest, powers: KernelPowers): Promise<KernelOutcome> {
  let sandbox: PreparedSandbox;
  try {
    sandbox = prepareSandbox(powers.engine, runNeedsWasm(request));
  } catch (error) {
    const message = `The sandbox engine failed: ${error instanceof Error ? error.message : String(error)}`;
    return { result: { ok: false, code: 'sandbox-crashed', message, logs: [], receipt: { wallMs: 0, modules: [], calls: [], denied: [] } }, healthy: false };
  }
  const outcome = await runPrepared(sandbox, request, powers);
  const freed = disposeSandbox(sandbox);
  return freed ? outcome : { ...outcome, healthy: false };
}

/**
 * Steps 3–5 on a prepared sandbox, once. The caller frees it afterwards with `disposeSandbox`
 * (a worker does so after posting the result, so freeing is not on the run's critical path).
 */
export async function runPrepared(prepared: PreparedSandbox, request: KernelRunRequest, powers: RunPowers): Promise<KernelOutcome> {
  const run = beginRun(prepared, request, powers, runJobLoop);
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
 * (sandbox-worker.ts), which may make no host call. Its `hostCall` power gives the run up (its
 * `checkpoint` then returns true); where the run would still wait, it ends with an outcome its
 * host discards.
 */
export function runPreparedNow(prepared: PreparedSandbox, request: KernelRunRequest, powers: RunPowers): KernelOutcome {
  const run = beginRun(prepared, request, powers, runJobLoopNow);
  if (!('outcome' in run)) return run;
  try {
    return run.end(run.outcome);
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
  prepared: PreparedSandbox,
  request: KernelRunRequest,
  powers: RunPowers,
  drive: (run: JobLoopRun) => O,
): StartedRun<O> | KernelOutcome {
  const sandbox = prepared as Sandbox;
  if (sandbox.used || sandbox.disposed) throw new Error('a prepared sandbox serves one run only (until it is rewound)');
  if (!fitsRun(sandbox, request.modules)) throw new Error("this sandbox holds evaluated modules that are not the run's own: use another");
  sandbox.used = true;
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
  if (runNeedsWasm(request) && !sandbox.withWasm) throw new Error('this run has WASM modules: it needs a sandbox prepared with the WASM bridge');
  const entry = buildEntryModule(request.code);
  if (!entry.ok) return finish({ ok: false, code: entry.code, message: entry.message });

  const fail = (error: unknown): KernelOutcome => {
    // The host's own stack can run out inside the engine before the guest stack limit trips (a
    // browser Web Worker's stack is smaller than a Node worker's, measured): that is still the
    // guest recursing too deeply. The engine was unwound mid-call, so freeing its runtime would
    // trip its own assertions (measured: an abort); it is retired whole, its scope left unfreed.
    if (error instanceof RangeError && /maximum call stack/i.test(error.message)) {
      sandbox.broken = true;
      return finish(
        state.serializingResult ? RESULT_TOO_DEEP : { ok: false, code: 'stack-overflow', message: 'The code recursed too deeply and was stopped.' },
        false,
      );
    }
    sandbox.tainted = true;
    return finish(
      { ok: false, code: 'sandbox-crashed', message: `The sandbox engine failed: ${error instanceof Error ? error.message : String(error)}` },
      false,
    );
  };
  try {
    sandbox.runScope = new Scope();
    const outcome = evaluate({ sandbox, scope: sandbox.runScope, request, entry: entry.value, state, powers }, drive);
    // The run is over once its outcome is: late host answers find it closed and touch nothing.
    return { outcome, end: (result) => finish(result), fail };
  } catch (error) {
    return fail(error);
  }
}

interface Evaluation {
  readonly sandbox: Sandbox;
  /** The run's scope: every handle taken for the run is freed with it. */
  readonly scope: Scope;
  readonly request: KernelRunRequest;
  readonly entry: EntryModule;
  readonly state: RunState;
  readonly powers: RunPowers;
}

function evaluate<O extends Outcome | Promise<Outcome>>(
  { sandbox, scope, request, entry, state, powers }: Evaluation,
  drive: (run: JobLoopRun) => O,
): O | Outcome {
  const { ctx, runtime, serialize, parse } = sandbox;
  const graph: LoaderGraph = { entries: request.entries, modules: request.modules };
  let bindInputs: () => void = () => undefined;
  sandbox.bridge.bind({ request, graph, state, hostCall: powers.hostCall, now: powers.now, bindInputs: () => bindInputs() }, scope);
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
  for (const entry of sandbox.image?.logs ?? []) state.log(entry.level, entry.text);
  installModuleLoader(runtime, request, graph, state, sandbox.image);

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
