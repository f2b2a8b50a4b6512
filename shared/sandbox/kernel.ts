// The sandbox kernel: one invocation of a Code node's code in a fresh quickjs-ng runtime and
// context. It is environment-neutral — the engine, the clock and the host side of capability and
// WASM calls are injected as powers — so the same kernel runs in a Node worker thread and, later,
// in a browser Web Worker.
//
// Order of events, which is the security argument:
//   1. fresh runtime (64 MB, 512 KB stack, deadline interrupt) and context;
//   2. the guest prelude hardens the global object and captures the bridge (before any module);
//   3. inputs are bound; the loader is installed over the run's resolution only;
//   4. the entry module evaluates: declared modules first (they see the hardened world), then the
//      entry body, which deletes the WASM bridge binding before the user's IIFE starts;
//   5. the pending-job loop drives promises, waiting on host calls when the guest is idle;
//   6. every handle, the context and the runtime are disposed in `finally`.

import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { LIMITS } from '../protocol/limits.ts';
import { jsonTextDeeperThan } from '../protocol/json-depth.ts';
import type { HostCallResult, KernelRunRequest, ReceiptCall, ReceiptDenial, RunLog, RunReceipt, RunResult } from '../protocol/run.ts';
import { bytesReplacer, reviveNumber } from './base64.ts';
import { buildEntryModule, ENTRY_MODULE_NAME, type EntryModule } from './entry-transform.ts';
import { HOST_CALL_GLOBAL, HOST_LIBRARY_GLOBAL, HOST_LOG_GLOBAL, HOST_WASM_GLOBAL, LIBRARY_SCRIPT_NAME, PRELUDE_SCRIPT_NAME, guestLibrarySource, guestPreludeSource } from './guest-prelude.ts';
import { decideImport, type LoaderGraph } from './loader-policy.ts';
import { classifyGuestError, type GuestErrorInfo } from './guest-errors.ts';
import { WASM_BRIDGE_MODULE_ID } from '../protocol/wasm-bridge.ts';
import { wasmBridgeModuleSource } from '../packs/wasm-facade.ts';

export interface KernelPowers {
  /**
   * The quickjs-ng engine instance. Give each run one no other run has used (engine-supply.ts):
   * a new runtime does not clear what earlier runs left in the instance's memory.
   */
  readonly engine: QuickJSWASMModule;
  /** Milliseconds, monotonic enough for deadlines. */
  readonly now: () => number;
  /**
   * The host side of capability and WASM calls. Must resolve (never reject) with a tagged result.
   * Grants are checked by the kernel before this is called; handlers check their own parameters.
   */
  readonly hostCall: (kind: 'capability' | 'wasm', name: string, args: readonly unknown[]) => Promise<HostCallResult>;
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
}

/** The longest the job loop blocks at a time; past it, timers (a lane's call timeout) get to run. */
const BLOCK_SLICE_MS = 1;

export interface KernelOutcome {
  readonly result: RunResult;
  /** False when the engine misbehaved on the host side: the caller must not use this engine again. */
  readonly healthy: boolean;
}

/** Capability names the guest prelude calls, with the grant each needs. */
const CAPABILITIES: Readonly<Record<string, 'fetch' | 'workspace' | 'secret'>> = {
  fetch: 'fetch',
  'workspace.read': 'workspace',
  'workspace.write': 'workspace',
  'workspace.list': 'workspace',
  getSecret: 'secret',
};

const DENIED_PREFIX = 'denied:';

const RESULT_TOO_DEEP: Outcome = {
  ok: false,
  code: 'result-invalid',
  message: `The code's result is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed out of the sandbox may have.`,
};

class RunState {
  readonly logs: RunLog[] = [];
  readonly calls: ReceiptCall[] = [];
  readonly denied: ReceiptDenial[] = [];
  readonly modules = new Map<string, { moduleId: string; displayName: string; digest: string }>();
  readonly inflight = new Set<Promise<void>>();
  /** Host calls still unanswered when the run ends; their handles are freed with the context. */
  readonly deferreds = new Set<QuickJSDeferredPromise>();
  interrupted = false;
  closed = false;
  /** True while the guest's result is being serialized (see RESULT_TOO_DEEP). */
  serializingResult = false;
  /** The job loop's pending wait, if any: resolved with `true` by the deadline, `false` by a settled host call. */
  private waiter: ((expired: boolean) => void) | undefined;

  private expired = false;

  /** Sleep until a host call settles or the deadline passes; only the job loop waits. */
  wait(): Promise<boolean> {
    if (this.expired) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      this.waiter = resolve;
    });
  }

  /** The run's deadline timer fired: the current or next wait ends as a timeout. */
  expire(): void {
    this.expired = true;
    this.wake(true);
  }

  wake(expired: boolean): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(expired);
  }
  private logBytes = 0;
  private logTruncated = false;

  constructor(private readonly onLog: KernelPowers['onLog']) {}

  /** Console output, capped in bytes and in entries (an empty line costs no bytes, but an entry). */
  log(level: RunLog['level'], text: string): void {
    if (this.logTruncated) return;
    if (this.logs.length >= LIMITS.consoleEntries) {
      this.truncate(`[console output truncated at ${LIMITS.consoleEntries} entries]`);
      return;
    }
    const room = LIMITS.consoleBytes - this.logBytes;
    if (text.length > room) {
      this.keep({ level, text: text.slice(0, Math.max(0, room)) });
      this.truncate(`[console output truncated at ${LIMITS.consoleBytes} bytes]`);
      return;
    }
    this.logBytes += text.length;
    this.keep({ level, text });
  }

  private keep(entry: RunLog): void {
    this.logs.push(entry);
    this.onLog?.(entry);
  }

  private truncate(marker: string): void {
    this.keep({ level: 'warn', text: marker });
    this.logTruncated = true;
  }

  receipt(wallMs: number): RunReceipt {
    return { wallMs, modules: [...this.modules.values()], calls: this.calls, denied: this.denied };
  }
}

/** A denial's `from` when the sandbox cannot tell which code asked (see `callerOf`). */
export const UNKNOWN_CALLER = 'unknown';

/**
 * Who made a host call, from the file name of its innermost frame that is not the prelude's, the
 * bridge library's or a built-in's (the prelude reads it from the engine's own frames, see
 * `caller` in guest-prelude.ts). Never parsed from stack text: function names in it are the
 * guest's to write. No such frame (a promise job calling a capability directly) or a file that
 * is not this run's is `UNKNOWN_CALLER`, never a guess.
 */
function callerOf(file: string, graph: LoaderGraph): string {
  if (file === ENTRY_MODULE_NAME) return 'the node\'s code';
  const module = Object.hasOwn(graph.modules, file) ? graph.modules[file] : undefined;
  return module ? module.displayName : UNKNOWN_CALLER;
}

function readArgs(ctx: QuickJSContext, jsonHandle: QuickJSHandle | undefined, buffersHandle: QuickJSHandle | undefined): unknown[] | undefined {
  if (!jsonHandle || ctx.typeof(jsonHandle) !== 'string') return undefined;
  const buffers: Uint8Array[] = [];
  if (buffersHandle && ctx.typeof(buffersHandle) === 'object') {
    const lengthHandle = ctx.getProp(buffersHandle, 'length');
    const length = ctx.typeof(lengthHandle) === 'number' ? ctx.getNumber(lengthHandle) : 0;
    lengthHandle.dispose();
    for (let i = 0; i < Math.min(length, 64); i++) {
      const item = ctx.getProp(buffersHandle, i);
      try {
        const view = ctx.getArrayBuffer(item);
        buffers.push(view.value.slice());
        view.dispose();
      } catch {
        return undefined;
      } finally {
        item.dispose();
      }
    }
  }
  try {
    const text = ctx.getString(jsonHandle);
    // The reviver only acts on `__sandbox…` tags; text without that name (and without escapes
    // that could spell it) parses the same without one, and a reviver is the slower path.
    if (!text.includes('__sandbox') && !text.includes('\\')) {
      const plain: unknown = JSON.parse(text);
      return Array.isArray(plain) ? plain : undefined;
    }
    const parsed: unknown = JSON.parse(text, (_key, value: unknown) => {
      if (value !== null && typeof value === 'object' && typeof (value as { __sandboxBuffer?: unknown }).__sandboxBuffer === 'number') {
        return buffers[(value as { __sandboxBuffer: number }).__sandboxBuffer];
      }
      const number = reviveNumber(value);
      if (number !== undefined) return number;
      return value;
    });
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
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

  const graph: LoaderGraph = { entries: request.entries, modules: request.modules };
  const withWasm = Object.values(request.modules).some((m) => m.kind === 'wasm');
  let runtime: QuickJSRuntime | undefined;
  let ctx: QuickJSContext | undefined;
  const owned: QuickJSHandle[] = [];
  let outcome: Outcome;
  let healthy = true;
  let hostStackOverflow = false;
  try {
    runtime = powers.engine.newRuntime();
    runtime.setMemoryLimit(LIMITS.guestMemoryBytes);
    runtime.setMaxStackSize(LIMITS.guestStackBytes);
    ctx = runtime.newContext();
    outcome = await evaluate(ctx, runtime, request, entry.value, graph, withWasm, state, owned, powers);
  } catch (error) {
    healthy = false;
    // The host's own stack can run out inside the engine before the guest stack limit trips (a
    // browser Web Worker's stack is smaller than a Node worker's, measured): that is still the
    // guest recursing too deeply. The engine was unwound mid-call, so freeing its runtime would
    // trip its own assertions (measured: an abort); it is retired whole instead.
    hostStackOverflow = error instanceof RangeError && /maximum call stack/i.test(error.message);
    outcome = hostStackOverflow
      ? state.serializingResult ? RESULT_TOO_DEEP : { ok: false, code: 'stack-overflow', message: 'The code recursed too deeply and was stopped.' }
      : { ok: false, code: 'sandbox-crashed', message: `The sandbox engine failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  state.closed = true;
  if (hostStackOverflow) return finish(outcome, false);
  try {
    for (const deferred of state.deferreds) deferred.dispose();
    state.deferreds.clear();
    for (const handle of owned) if (handle.alive) handle.dispose();
    ctx?.dispose();
    runtime?.dispose();
  } catch {
    // A runtime that cannot be freed cleanly leaves the engine suspect: the result stands, but
    // the caller must retire this thread's engine.
    healthy = false;
  }
  return finish(outcome, healthy);
}

type Outcome = { ok: true; value: unknown } | { ok: false; code: string; message: string };

async function evaluate(
  ctx: QuickJSContext,
  runtime: QuickJSRuntime,
  request: KernelRunRequest,
  entry: EntryModule,
  graph: LoaderGraph,
  withWasm: boolean,
  state: RunState,
  owned: QuickJSHandle[],
  powers: KernelPowers,
): Promise<Outcome> {
  const denialMessages = new Map<string, ReceiptDenial>();
  const deny = (denial: ReceiptDenial): void => {
    state.denied.push(denial);
    denialMessages.set(denial.reason, denial);
  };

  // --- host functions, captured and deleted by the prelude ---------------------------------------
  const hostLog = ctx.newFunction(HOST_LOG_GLOBAL, (levelHandle, textHandle) => {
    const level = levelHandle && ctx.typeof(levelHandle) === 'string' ? ctx.getString(levelHandle) : 'log';
    const text = textHandle && ctx.typeof(textHandle) === 'string' ? ctx.getString(textHandle) : '';
    state.log((['log', 'info', 'warn', 'error', 'debug'].includes(level) ? level : 'log') as RunLog['level'], text);
  });
  ctx.setProp(ctx.global, HOST_LOG_GLOBAL, hostLog);
  hostLog.dispose();

  /** Keep a host call's answer in flight until it has been handed to the guest; wake the job loop then. */
  const track = (answer: Promise<HostCallResult>, settle: (result: HostCallResult) => void): void => {
    const tracked: Promise<void> = answer
      .then(settle, (error: unknown) => settle({ ok: false, code: 'internal', message: `The host failed: ${error instanceof Error ? error.message : String(error)}` }))
      .finally(() => {
        state.inflight.delete(tracked);
        state.wake(false);
      });
    state.inflight.add(tracked);
  };

  const asTaggedJson = (live: QuickJSContext, result: HostCallResult): QuickJSHandle => live.newString(JSON.stringify(result, bytesReplacer));

  /** Answer one general host call: a promise handle now, resolved with the tagged result as JSON later. */
  const answerWith = (answer: Promise<HostCallResult>): QuickJSHandle => {
    const live = ctx;
    const deferred = live.newPromise();
    state.deferreds.add(deferred);
    track(answer, (result) => {
      if (state.closed || !live.alive) return;
      const value = asTaggedJson(live, result);
      deferred.resolve(value);
      value.dispose();
      deferred.dispose();
      state.deferreds.delete(deferred);
    });
    return deferred.handle;
  };

  const hostCall = ctx.newFunction(HOST_CALL_GLOBAL, (kindHandle, nameHandle, jsonHandle, buffersHandle) => {
    const live = ctx;
    const kind = kindHandle && live.typeof(kindHandle) === 'string' ? live.getString(kindHandle) : '';
    const name = nameHandle && live.typeof(nameHandle) === 'string' ? live.getString(nameHandle) : '';
    const args = readArgs(live, jsonHandle, buffersHandle);
    return answerWith(dispatch(kind, name, args));
  });
  ctx.setProp(ctx.global, HOST_CALL_GLOBAL, hostCall);
  hostCall.dispose();

  // The WASM fast path (see HOST_WASM_GLOBAL): numbers in, a call id back at once, and later a
  // number or `undefined` delivered through the core's `deliver`. The same dispatch and checks as
  // the general bridge; only the marshaling differs. `deliver` is read once the core has run.
  let deliver: QuickJSHandle | undefined;
  let nextWasmCall = 1;
  if (withWasm) {
    const hostWasm = ctx.newFunction(HOST_WASM_GLOBAL, (moduleHandle, exportHandle, ...argHandles) => {
      const live = ctx;
      const moduleId = moduleHandle && live.typeof(moduleHandle) === 'string' ? live.getString(moduleHandle) : undefined;
      const exportName = exportHandle && live.typeof(exportHandle) === 'string' ? live.getString(exportHandle) : undefined;
      const numbers: number[] = [];
      for (const handle of argHandles) {
        if (live.typeof(handle) !== 'number') {
          numbers.length = 0;
          break;
        }
        numbers.push(live.getNumber(handle));
      }
      const args = numbers.length === argHandles.length ? [moduleId, exportName, numbers] : undefined;
      const id = nextWasmCall++;
      const settle = (result: HostCallResult) => {
        if (state.closed || !live.alive || !deliver) return;
        const idHandle = live.newNumber(id);
        const value = result.ok && typeof result.value === 'number' ? live.newNumber(result.value) : result.ok && result.value === undefined ? live.undefined : asTaggedJson(live, result);
        const delivered = live.callFunction(deliver, live.undefined, idHandle, value);
        idHandle.dispose();
        if (value !== live.undefined) value.dispose();
        if (delivered.error) delivered.error.dispose();
        else delivered.value.dispose();
      };
      track(dispatch('wasm', 'call', args), settle);
      return live.newNumber(id);
    });
    ctx.setProp(ctx.global, HOST_WASM_GLOBAL, hostWasm);
    hostWasm.dispose();
  }

  // The bridge library is compiled on first use only (see guest-prelude.ts); the core calls this
  // once with the intrinsics it captured before any guest code ran.
  const hostLibrary = ctx.newFunction(HOST_LIBRARY_GLOBAL, (intrinsics) => {
    const compiled = ctx.evalCode(guestLibrarySource(), LIBRARY_SCRIPT_NAME, { type: 'global', strict: true });
    if (compiled.error) return compiled;
    const library = ctx.callFunction(compiled.value, ctx.undefined, intrinsics ?? ctx.undefined);
    compiled.value.dispose();
    return library;
  });
  ctx.setProp(ctx.global, HOST_LIBRARY_GLOBAL, hostLibrary);
  hostLibrary.dispose();

  /** The caller's file (see `callerOf`): valid only synchronously inside a host call, which is where dispatch runs. */
  let callerHelper: QuickJSHandle | undefined;
  const callerFile = (): string => {
    if (!callerHelper) return '';
    const found = ctx.callFunction(callerHelper, ctx.undefined);
    if (found.error) {
      found.error.dispose();
      return '';
    }
    const file = ctx.typeof(found.value) === 'string' ? ctx.getString(found.value) : '';
    found.value.dispose();
    return file;
  };

  function dispatch(kind: string, name: string, args: unknown[] | undefined): Promise<HostCallResult> {
    if (args === undefined) return Promise.resolve({ ok: false, code: 'invalid-data', message: 'The bridge received arguments it cannot read.' });
    if (kind === 'capability') {
      const grant = Object.hasOwn(CAPABILITIES, name) ? CAPABILITIES[name] : undefined;
      const secretName = grant === 'secret' && typeof args[0] === 'string' ? args[0] : undefined;
      const granted = grant === 'fetch' ? request.grants.fetch : grant === 'workspace' ? request.grants.workspace : grant === 'secret' ? secretName !== undefined && request.grants.secrets.includes(secretName) : false;
      if (!granted) {
        // Finding the caller costs a stack capture: only a denial names it.
        const from = callerOf(callerFile(), graph);
        const what = grant === 'secret' ? `getSecret(${JSON.stringify(secretName ?? '')})` : name;
        const who = from === UNKNOWN_CALLER ? `${what} was denied (the sandbox could not tell which code called it)` : `${what} called by ${from} was denied`;
        const reason = grant === 'secret' ? `${who}: this node was not granted that secret.` : `${who}: this node was not granted the ${grant ?? name} capability.`;
        deny({ kind: 'capability', request: what, from, code: 'capability-denied', reason });
        state.calls.push({ kind: 'capability', name, ok: false, code: 'capability-denied' });
        return Promise.resolve({ ok: false, code: 'capability-denied', message: reason });
      }
      return record('capability', name, powers.hostCall('capability', name, args));
    }
    if (kind === 'wasm') {
      const [moduleId, exportName, wasmArgs] = args;
      const module = typeof moduleId === 'string' && Object.hasOwn(graph.modules, moduleId) ? graph.modules[moduleId] : undefined;
      if (!module || module.kind !== 'wasm') {
        state.calls.push({ kind: 'wasm', name: String(moduleId), ok: false, code: 'wasm-not-declared' });
        return Promise.resolve({ ok: false, code: 'wasm-not-declared', message: `WASM module ${JSON.stringify(String(moduleId))} is not part of this run's declared packages.` });
      }
      // The export and the arguments are the dispatcher's to check (it names what is wrong).
      const label = typeof exportName === 'string' && exportName.length <= 128 ? exportName : '?';
      return record('wasm', `${module.displayName}#${label}`, powers.hostCall('wasm', moduleId as string, [exportName, wasmArgs]));
    }
    return Promise.resolve({ ok: false, code: 'invalid-data', message: `Unknown bridge call ${JSON.stringify(kind)}.` });
  }

  function record(kind: 'capability' | 'wasm', name: string, answer: Promise<HostCallResult>): Promise<HostCallResult> {
    return answer.then((result) => {
      state.calls.push(result.ok ? { kind, name, ok: true } : { kind, name, ok: false, code: result.code });
      return result;
    });
  }

  // --- prelude: hardening before anything else evaluates -------------------------------------------
  const prelude = ctx.evalCode(guestPreludeSource(withWasm), PRELUDE_SCRIPT_NAME, { type: 'global', strict: true });
  if (prelude.error) {
    const info = ctx.dump(prelude.error) as unknown;
    prelude.error.dispose();
    throw new Error(`the guest prelude failed: ${JSON.stringify(info)}`);
  }
  const helpers = prelude.value;
  owned.push(helpers);
  const serialize = ctx.getProp(helpers, 'serialize');
  const parse = ctx.getProp(helpers, 'parse');
  deliver = ctx.getProp(helpers, 'deliver');
  callerHelper = ctx.getProp(helpers, 'caller');
  owned.push(serialize, parse, deliver, callerHelper);
  if (withWasm) {
    // The bridge module takes the prelude's one-shot WASM binding now, before any pack module
    // evaluates; facades import this instance (the engine keeps evaluated modules by name).
    const bridge = ctx.evalCode(wasmBridgeModuleSource(), WASM_BRIDGE_MODULE_ID, { type: 'module' });
    if (bridge.error) {
      const info = ctx.dump(bridge.error) as unknown;
      bridge.error.dispose();
      throw new Error(`the WASM bridge module failed: ${JSON.stringify(info)}`);
    }
    bridge.value.dispose();
  }

  // The deadline covers everything guest-controlled (inputs, modules, the node's code); the
  // prelude above is ours and runs before the clock starts.
  const deadline = powers.now() + request.timeoutMs;
  runtime.setInterruptHandler(() => {
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

  // --- the loader: the boundary ---------------------------------------------------------------------
  const deniedNames = new Map<string, ReceiptDenial>();
  runtime.setModuleLoader(
    (moduleName) => {
      const denial = deniedNames.get(moduleName);
      if (denial) return { error: new Error(denial.reason) };
      if (moduleName === WASM_BRIDGE_MODULE_ID && withWasm) return wasmBridgeModuleSource();
      const module = Object.hasOwn(request.modules, moduleName) ? request.modules[moduleName] : undefined;
      if (!module) {
        // The normalizer never produces such a name; the C side passes "" when a normalizer failed.
        const reason = `Import of ${JSON.stringify(moduleName)} was denied: it is not part of this run. This node's packages declaration is ${JSON.stringify(Object.keys(request.entries))}.`;
        deny({ kind: 'import', request: moduleName, from: 'unknown', code: 'import-denied', reason });
        return { error: new Error(reason) };
      }
      if (!state.modules.has(module.moduleId)) state.modules.set(module.moduleId, { moduleId: module.moduleId, displayName: module.displayName, digest: module.digest });
      return module.source;
    },
    (baseName, requestName) => {
      const decision = decideImport(graph, baseName, requestName);
      if (decision.ok) return decision.moduleId;
      // Errors from a normalizer are lost by the C side, so deny through a unique marker name the
      // loader turns into the error. Unique per attempt: a denied name can never be cached.
      const marker = `${DENIED_PREFIX}${deniedNames.size}`;
      const from = baseName === ENTRY_MODULE_NAME ? 'the node\'s code' : (graph.modules[baseName]?.displayName ?? baseName);
      const denial: ReceiptDenial = { kind: 'import', request: requestName, from, code: decision.code, reason: decision.message };
      deniedNames.set(marker, denial);
      deny(denial);
      return marker;
    },
  );

  // --- evaluate and drive the job loop ----------------------------------------------------------------
  const errorOutcome = (handle: QuickJSHandle): Outcome => {
    const info = ctx.dump(handle) as GuestErrorInfo;
    handle.dispose();
    return classifyGuestError(info, { interrupted: state.interrupted, denials: denialMessages, entry, graph, timeoutMs: request.timeoutMs });
  };

  const evaluated = ctx.evalCode(entry.source, ENTRY_MODULE_NAME, { type: 'module' });
  if (evaluated.error) return errorOutcome(evaluated.error);
  const promise = evaluated.value;
  owned.push(promise);

  // One deadline timer per run, armed at the first wait (a timer and a Promise.race per wait cost
  // more than the rest of an instant host call's round trip, measured).
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      if (state.interrupted) return { ok: false, code: 'timeout', message: timeoutMessage(request.timeoutMs) };
      const promiseState = ctx.getPromiseState(promise);
      if (promiseState.type === 'fulfilled') {
        const namespace = promiseState.value;
        owned.push(namespace);
        const value = ctx.getProp(namespace, 'default');
        owned.push(value);
        // A result nested thousands deep can exhaust the host's stack inside the engine's JSON
        // (a browser worker's, measured at 5,000): the flag turns that into result-invalid.
        state.serializingResult = true;
        const serialized = ctx.callFunction(serialize, ctx.undefined, value);
        state.serializingResult = false;
        if (serialized.error) {
          const info = ctx.dump(serialized.error) as GuestErrorInfo;
          serialized.error.dispose();
          if (state.interrupted) return { ok: false, code: 'timeout', message: timeoutMessage(request.timeoutMs) };
          return { ok: false, code: 'result-invalid', message: `The code's result cannot be passed out of the sandbox as JSON: ${info !== null && typeof info === 'object' && typeof info.message === 'string' ? info.message : String(info)}.` };
        }
        const text = ctx.typeof(serialized.value) === 'string' ? ctx.getString(serialized.value) : 'null';
        serialized.value.dispose();
        // A deeper value could not be posted to the host thread (structured clone runs out of stack).
        if (jsonTextDeeperThan(text, LIMITS.jsonDepth)) return RESULT_TOO_DEEP;
        return { ok: true, value: JSON.parse(text) as unknown };
      }
      if (promiseState.type === 'rejected') return errorOutcome(promiseState.error);

      if (runtime.hasPendingJob()) {
        const jobs = runtime.executePendingJobs();
        if (jobs.error) return errorOutcome(jobs.error);
        continue;
      }
      if (state.inflight.size === 0) {
        return { ok: false, code: 'runtime-error', message: 'The code is waiting for a promise that can never settle (nothing is pending in the sandbox).' };
      }
      const remaining = deadline - powers.now();
      if (remaining <= 0) return { ok: false, code: 'timeout', message: timeoutMessage(request.timeoutMs) };
      deadlineTimer ??= setTimeout(() => state.expire(), remaining);
      powers.block?.(Math.min(remaining, BLOCK_SLICE_MS));
      const expired = await state.wait();
      if (expired) return { ok: false, code: 'timeout', message: timeoutMessage(request.timeoutMs) };
    }
  } finally {
    clearTimeout(deadlineTimer);
  }
}

export function timeoutMessage(timeoutMs: number): string {
  return `The code ran longer than its ${timeoutMs} ms time limit and was stopped.`;
}

