// The host side of the guest's bridge: the functions the prelude captures and deletes before any
// module runs (console, general host calls, the WASM fast path, the lazily compiled library), the
// grant check every capability call passes before it reaches the host, and the receipt entries
// each call leaves. It is the only place guest values cross into host calls, so argument reading,
// caller attribution and answer delivery live together here.

import { Lifetime, type QuickJSContext, type QuickJSHandle, type Scope } from 'quickjs-emscripten-core';
import { formatBytes, LIMITS } from '../../protocol/limits.ts';
import type { HostCallResult, KernelRunRequest, RunLog } from '../../protocol/run.ts';
import { ENGINE_FULL_MESSAGE } from '../supply/engine.ts';
import type { NotBytes } from '../wasm/wasm-scalars.ts';
import { bytesReplacer, reviveNumber } from './base64.ts';
import { ENTRY_MODULE_NAME } from './entry-transform.ts';
import {
  HOST_CALL_GLOBAL,
  HOST_CLOCK_GLOBAL,
  HOST_LIBRARY_GLOBAL,
  HOST_LOG_GLOBAL,
  HOST_WASM_GLOBAL,
  LIBRARY_SCRIPT_NAME,
  guestLibrarySource,
} from './guest-prelude.ts';
import { HOST_RANDOM_GLOBAL, HOST_WEB_GLOBAL, RANDOM_BYTES_MAX, WEB_SCRIPT_NAME, webPartSource } from './guest-web.ts';
import type { LoaderGraph } from './loader-policy.ts';
import { HOST_INPUTS_GLOBAL } from './inputs-module.ts';
import type { RunState } from './run-state.ts';

/** The host side of capability and WASM calls (see KernelPowers.hostCall). */
export type HostCall = (kind: 'capability' | 'wasm', name: string, args: readonly unknown[]) => Promise<HostCallResult>;
/** A host call answered before it returns (see KernelPowers.hostCallNow); undefined: it cannot be, the run is given up. */
export type HostCallNow = (kind: 'capability' | 'wasm', name: string, args: readonly unknown[]) => HostCallResult | undefined;

/** A host call's answer: in hand (a check refused it, or the run is answered at once), coming, or none (the run is given up). */
type Answer = HostCallResult | Promise<HostCallResult> | undefined;

/** `f` applied to an answer, at once if it is in hand. */
const andThen = (answer: Answer, f: (result: HostCallResult) => HostCallResult): Answer =>
  answer instanceof Promise ? answer.then(f) : answer === undefined ? undefined : f(answer);

/** Capability names the guest prelude calls, with the grant each needs. */
const CAPABILITIES: Readonly<Record<string, 'fetch' | 'workspace' | 'secret'>> = {
  fetch: 'fetch',
  'workspace.read': 'workspace',
  'workspace.write': 'workspace',
  'workspace.list': 'workspace',
  getSecret: 'secret',
};

/** A denial's `from` when the sandbox cannot tell which code asked (see `callerOf`). */
export const UNKNOWN_CALLER = 'unknown';

/** The one run a prepared context serves, bound to its bridge when the run starts. */
export interface BridgeRun {
  readonly request: KernelRunRequest;
  readonly graph: LoaderGraph;
  readonly state: RunState;
  readonly hostCall: HostCall;
  /** Set for a run that never waits: its WASM calls on the fast path are answered at once. */
  readonly hostCallNow?: HostCallNow;
  /** The run's clock (KernelPowers.now): the guest's performance.now() counts from its reading at bind. */
  readonly now: () => number;
  /** Binds the run's inputs as globals; the entry calls it after every import has evaluated (inputs-module.ts). */
  readonly bindInputs?: () => void;
  /**
   * Set when what is bound is a module set's evaluation into an image (kernel.ts
   * `evaluateImageInto`), not a run: crypto's random bytes are refused (they would be every later
   * run's), and `drewRandom` says the set asked.
   */
  readonly imaging?: { drewRandom: boolean };
  /** Set for an isolated module's context (isolation.ts): its display name; it is granted nothing, and its denials say so. */
  readonly isolatedAs?: string;
}

export interface HostBridge {
  /** Hand over the prelude's `deliver` (WASM answers) and `caller` (attribution) once it has run. */
  attach(helpers: { readonly deliver: QuickJSHandle; readonly caller: QuickJSHandle }): void;
  /**
   * Bind the run this context serves (the context is prepared before its run is known).
   * Unanswered host calls are then held in `runScope`, the run's own, freed before the context.
   */
  bind(run: BridgeRun, runScope: Scope): void;
  /** Forget the run (its scope is freed): the functions answer as unbound again. */
  unbind(): void;
}

/** Every host function answers this until a run is bound: nothing of the guest's runs before then. */
const UNBOUND: HostCallResult = { ok: false, code: 'internal', message: 'The sandbox received a call before its run started.' };

/**
 * Who made a host call, from the file name of its innermost frame that is not the prelude's, the
 * bridge library's or a built-in's (the prelude reads it from the engine's own frames, see
 * `caller` in guest-prelude.ts). Never parsed from stack text: function names in it are the
 * guest's to write. No such frame (a promise job calling a capability directly) or a file that
 * is not this run's is `UNKNOWN_CALLER`, never a guess.
 */
function callerOf(file: string, graph: LoaderGraph): string {
  if (file === ENTRY_MODULE_NAME) return "the node's code";
  const module = Object.hasOwn(graph.modules, file) ? graph.modules[file] : undefined;
  return module ? module.displayName : UNKNOWN_CALLER;
}

/**
 * The fast path's arguments: numbers, strings, and ArrayBuffers (copied out of the guest's heap
 * as Uint8Arrays; `undefined` stands for no bytes); undefined when any is something else (the
 * guest's core sends nothing else); a sentence when one cannot be copied out.
 */
function readWasmArgs(ctx: QuickJSContext, handles: readonly QuickJSHandle[]): (number | string | Uint8Array | NotBytes)[] | string | undefined {
  const values: (number | string | Uint8Array | NotBytes)[] = [];
  for (const handle of handles) {
    const type = ctx.typeof(handle);
    if (type === 'number') values.push(ctx.getNumber(handle));
    else if (type === 'string') {
      const text = ctx.getString(handle);
      // The engine answers '' when it cannot make the copy (a long string near the memory cap):
      // never pass a different string on.
      const length = text === '' ? stringLength(ctx, handle) : 0;
      if (length !== 0) {
        return `A string of ${length} characters passed to WASM could not be copied out of the sandbox's memory, which is nearly full; pass less at a time.`;
      }
      values.push(text);
    } else if (type === 'undefined') values.push(new Uint8Array(0));
    else if (type === 'object') {
      const notBytes = ctx.getProp(handle, 'notBytes');
      const kind = ctx.typeof(notBytes) === 'string' ? ctx.getString(notBytes) : undefined;
      notBytes.dispose();
      if (kind !== undefined) {
        values.push({ notBytes: kind.slice(0, 32) });
        continue;
      }
      const bytes = copyArrayBuffer(ctx, handle);
      if (!bytes) return undefined;
      values.push(bytes);
    } else return undefined;
  }
  return values;
}

/** A guest ArrayBuffer's bytes, copied out; undefined when `handle` is not one. */
function copyArrayBuffer(ctx: QuickJSContext, handle: QuickJSHandle): Uint8Array | undefined {
  try {
    const view = ctx.getArrayBuffer(handle);
    const bytes = view.value.slice();
    view.dispose();
    return bytes;
  } catch {
    return undefined;
  }
}

function stringLength(ctx: QuickJSContext, handle: QuickJSHandle): number {
  const length = ctx.getProp(handle, 'length');
  const n = ctx.typeof(length) === 'number' ? ctx.getNumber(length) : -1;
  length.dispose();
  return n;
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
      const bytes = copyArrayBuffer(ctx, item);
      item.dispose();
      if (!bytes) return undefined;
      buffers.push(bytes);
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

/**
 * Define the bridge's host functions on the context's global object, for the prelude to capture.
 * They are defined before the context's run is known (a worker prepares the context while idle);
 * `bind` gives them the run, and until then they do nothing.
 */
export function installHostBridge(ctx: QuickJSContext, withWasm: boolean): HostBridge {
  let run: BridgeRun | undefined;
  let deliver: QuickJSHandle | undefined;
  let callerHelper: QuickJSHandle | undefined;

  const define = (name: string, fn: Parameters<QuickJSContext['newFunction']>[1]): void => {
    const handle = ctx.newFunction(name, fn);
    ctx.setProp(ctx.global, name, handle);
    handle.dispose();
  };

  // The guest's performance (see HOST_CLOCK_GLOBAL): the bound run's clock, from the run's start.
  let startedAt = 0;
  let timeOrigin = 0;
  define(HOST_CLOCK_GLOBAL, (whichHandle) => {
    if (!run) return ctx.newNumber(0);
    const origin = whichHandle !== undefined && ctx.typeof(whichHandle) === 'number' && ctx.getNumber(whichHandle) === 1;
    return ctx.newNumber(origin ? timeOrigin : run.now() - startedAt);
  });

  // Taken by the kernel's inputs module before any pack evaluates (inputs-module.ts).
  define(HOST_INPUTS_GLOBAL, () => {
    run?.bindInputs?.();
  });

  define(HOST_LOG_GLOBAL, (levelHandle, textHandle) => {
    const level = levelHandle && ctx.typeof(levelHandle) === 'string' ? ctx.getString(levelHandle) : 'log';
    const text = textHandle && ctx.typeof(textHandle) === 'string' ? ctx.getString(textHandle) : '';
    run?.state.log((['log', 'info', 'warn', 'error', 'debug'].includes(level) ? level : 'log') as RunLog['level'], text);
  });

  /** Keep a host call's answer in flight until it has been handed to the guest; wake the job loop then. */
  const track = (state: RunState, answer: Promise<HostCallResult>, settle: (result: HostCallResult) => void): void => {
    const tracked: Promise<void> = answer
      .then(settle, (error: unknown) =>
        settle({ ok: false, code: 'internal', message: `The host failed: ${error instanceof Error ? error.message : String(error)}` }),
      )
      .finally(() => {
        state.inflight.delete(tracked);
        state.wake(false);
      });
    state.inflight.add(tracked);
  };

  const asTaggedJson = (result: HostCallResult): QuickJSHandle => ctx.newString(JSON.stringify(result, bytesReplacer));

  /** Answer one general host call: a promise handle now, resolved with the tagged result as JSON later (at the job loop's next turn, when in hand). */
  const answerWith = (state: RunState, answer: Answer): QuickJSHandle => {
    const deferred = ctx.newPromise();
    state.deferreds.add(deferred);
    const settle = (result: HostCallResult) => {
      if (state.closed || !ctx.alive) return;
      const value = fitting(() => asTaggedJson(result), asTaggedJson);
      if (!value) return;
      deferred.resolve(value);
      value.dispose();
      deferred.dispose();
      state.deferreds.delete(deferred);
    };
    if (answer instanceof Promise) track(state, answer, settle);
    else if (answer) state.answered.push(() => settle(answer));
    return deferred.handle;
  };

  define(HOST_CALL_GLOBAL, (kindHandle, nameHandle, jsonHandle, buffersHandle) => {
    const kind = kindHandle && ctx.typeof(kindHandle) === 'string' ? ctx.getString(kindHandle) : '';
    const name = nameHandle && ctx.typeof(nameHandle) === 'string' ? ctx.getString(nameHandle) : '';
    if (!run) return asTaggedJson(UNBOUND);
    const args = readArgs(ctx, jsonHandle, buffersHandle);
    return answerWith(run.state, dispatch(run, kind, name, args));
  });

  // The WASM fast path (see HOST_WASM_GLOBAL): numbers, strings and ArrayBuffers (a Uint8Array's
  // bytes) in, a call id back at once, and later the answer delivered through the core's
  // `deliver`. The same dispatch and checks as the general bridge; only the marshaling differs.
  // `deliver` is attached once the core has run.
  let nextWasmCall = 1;
  if (withWasm) {
    define(HOST_WASM_GLOBAL, (moduleHandle, exportHandle, ...argHandles) => {
      const moduleId = moduleHandle && ctx.typeof(moduleHandle) === 'string' ? ctx.getString(moduleHandle) : undefined;
      const exportName = exportHandle && ctx.typeof(exportHandle) === 'string' ? ctx.getString(exportHandle) : undefined;
      const values = readWasmArgs(ctx, argHandles);
      const args = Array.isArray(values) ? [moduleId, exportName, values] : undefined;
      if (!run) return asTaggedJson(UNBOUND);
      const { state } = run;
      const id = nextWasmCall++;
      const settle = (result: HostCallResult) => {
        if (state.closed || !ctx.alive || !deliver) return;
        const handed = fitting(() => wasmAnswer(result), wasmAnswer);
        if (!handed) return;
        const [value, how] = handed;
        const idHandle = ctx.newNumber(id);
        const delivered = ctx.callFunction(deliver, ctx.undefined, idHandle, value, how);
        idHandle.dispose();
        if (value !== ctx.undefined) value.dispose();
        if (how !== ctx.undefined) how.dispose();
        if (delivered.error) delivered.error.dispose();
        else delivered.value.dispose();
      };
      const answer: Answer = typeof values === 'string' ? { ok: false, code: 'invalid-data', message: values } : dispatch(run, 'wasm', 'call', args);
      // One in hand is handed to the guest at the job loop's next turn, once the id is registered.
      if (answer instanceof Promise) track(state, answer, settle);
      else if (answer) state.answered.push(() => settle(answer));
      return ctx.newNumber(id);
    });
  }

  /** A WASM answer as `deliver` takes it: the value, and how to read it (1: tagged JSON, 2: bytes). */
  const wasmAnswer = (result: HostCallResult): [QuickJSHandle, QuickJSHandle] => {
    if (result.ok) {
      const value: unknown = result.value;
      if (typeof value === 'number') return [ctx.newNumber(value), ctx.undefined];
      if (value === undefined) return [ctx.undefined, ctx.undefined];
      if (typeof value === 'string') return [ctx.newString(value), ctx.undefined];
      if (value instanceof Uint8Array) {
        // A copy into the guest's heap, which counts against its memory limit like any allocation.
        const buffer = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value.buffer : value.slice().buffer;
        return [ctx.newArrayBuffer(buffer as ArrayBuffer), ctx.newNumber(2)];
      }
    }
    return [asTaggedJson(result), ctx.newNumber(1)];
  };

  /**
   * `make()`, or when the engine's memory cannot hold what it hands the guest (its staging
   * allocation fails: supply/engine.ts guardHostAllocations), `instead(failure)` with a
   * `memory-limit` failure the guest can catch; undefined when not even that fits (the call then
   * never settles, and the run ends at its deadline or when nothing else can run).
   */
  function fitting<T>(make: () => T, instead: (failure: HostCallResult) => T): T | undefined {
    try {
      return make();
    } catch (error) {
      if (!(error instanceof RangeError && error.message === ENGINE_FULL_MESSAGE)) throw error;
    }
    const message = `That answer does not fit in the sandbox's memory, which is nearly full (the limit is ${formatBytes(LIMITS.guestMemoryBytes)}); ask for less at a time, or keep less.`;
    try {
      return instead({ ok: false, code: 'memory-limit', message });
    } catch {
      return undefined;
    }
  }

  // The bridge library: the core calls this once per context, with the intrinsics it captured
  // before any guest code ran (ahead of any run in a sandbox's own context, see sandbox.ts warmGuest).
  define(HOST_LIBRARY_GLOBAL, (intrinsics) => {
    const compiled = ctx.evalCode(guestLibrarySource(), LIBRARY_SCRIPT_NAME, { type: 'global', strict: true });
    if (compiled.error) return compiled;
    const library = ctx.callFunction(compiled.value, ctx.undefined, intrinsics ?? ctx.undefined);
    compiled.value.dispose();
    return library;
  });

  // A web-standard global's part, compiled on its first use in a run (guest-web.ts); the core
  // passes the intrinsics it captured and its own loader (a part may need another).
  define(HOST_WEB_GLOBAL, (partHandle, intrinsics, need) => {
    const source = partHandle && ctx.typeof(partHandle) === 'string' ? webPartSource(ctx.getString(partHandle)) : undefined;
    if (source === undefined) throw new Error('the guest asked for a web part that does not exist');
    const compiled = ctx.evalCode(source, WEB_SCRIPT_NAME, { type: 'global', strict: true });
    if (compiled.error) return compiled;
    const part = ctx.callFunction(compiled.value, ctx.undefined, intrinsics ?? ctx.undefined, need ?? ctx.undefined);
    compiled.value.dispose();
    return part;
  });

  // crypto.getRandomValues / randomUUID: bytes from the host's CSPRNG (Web Crypto, in Node and
  // browsers alike), only while a run is bound: a module set evaluated ahead of any run (an image)
  // must not carry random values every later run would share. Undefined tells the guest no.
  define(HOST_RANDOM_GLOBAL, (countHandle) => {
    const count = countHandle && ctx.typeof(countHandle) === 'number' ? ctx.getNumber(countHandle) : -1;
    if (run?.imaging) run.imaging.drewRandom = true;
    if (!run || run.imaging || !Number.isInteger(count) || count < 0 || count > RANDOM_BYTES_MAX) return ctx.undefined;
    const bytes = new Uint8Array(count);
    globalThis.crypto.getRandomValues(bytes);
    return ctx.newArrayBuffer(bytes.buffer);
  });

  /** The caller's file (see `callerOf`): valid only synchronously inside a host call, which is where dispatch runs. */
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

  /** A host call of the run's, at once where the run is answered at once (`hostCallNow`). */
  function ask(run: BridgeRun, kind: 'capability' | 'wasm', name: string, args: readonly unknown[]): Answer {
    return run.hostCallNow ? run.hostCallNow(kind, name, args) : run.hostCall(kind, name, args);
  }

  function dispatch(run: BridgeRun, kind: string, name: string, args: unknown[] | undefined): Answer {
    const { request, graph, state } = run;
    if (args === undefined) return { ok: false, code: 'invalid-data', message: 'The bridge received arguments it cannot read.' };
    if (kind === 'capability') {
      const grant = Object.hasOwn(CAPABILITIES, name) ? CAPABILITIES[name] : undefined;
      const secretName = grant === 'secret' && typeof args[0] === 'string' ? args[0] : undefined;
      const granted =
        grant === 'fetch'
          ? request.grants.fetch
          : grant === 'workspace'
            ? request.grants.workspace
            : grant === 'secret'
              ? secretName !== undefined && request.grants.secrets.includes(secretName)
              : false;
      if (!granted) {
        // Finding the caller costs a stack capture: only a denial names it.
        const from = callerOf(callerFile(), graph);
        const what = grant === 'secret' ? `getSecret(${JSON.stringify(secretName ?? '')})` : name;
        const who = from === UNKNOWN_CALLER ? `${what} was denied (the sandbox could not tell which code called it)` : `${what} called by ${from} was denied`;
        const reason = run.isolatedAs
          ? `${who}: ${run.isolatedAs} runs isolated and can reach none of this node's network, workspace or secrets.`
          : grant === 'secret'
            ? `${who}: this node was not granted that secret.`
            : `${who}: this node was not granted the ${grant ?? name} capability.`;
        state.deny({ kind: 'capability', request: what, from, code: 'capability-denied', reason });
        state.calls.push({ kind: 'capability', name, ok: false, code: 'capability-denied' });
        return { ok: false, code: 'capability-denied', message: reason };
      }
      // The host may still refuse a granted call (a fetch host off the node's list, a path outside
      // its workspace): that refusal is a denial too, so the receipt never lists it under Calls
      // alone. The caller is found now, while its stack is live (a capability call is I/O anyway).
      const from = callerOf(callerFile(), graph);
      return andThen(record(state, 'capability', name, ask(run, 'capability', name, args)), (result) => {
        if (!result.ok && result.code === 'capability-denied')
          state.deny({ kind: 'capability', request: name, from, code: result.code, reason: result.message });
        return result;
      });
    }
    if (kind === 'wasm') {
      const [moduleId, exportName, wasmArgs] = args;
      const module = typeof moduleId === 'string' && Object.hasOwn(graph.modules, moduleId) ? graph.modules[moduleId] : undefined;
      if (!module || module.kind !== 'wasm') {
        state.calls.push({ kind: 'wasm', name: String(moduleId), ok: false, code: 'wasm-not-declared' });
        return {
          ok: false,
          code: 'wasm-not-declared',
          message: `WASM module ${JSON.stringify(String(moduleId))} is not part of this run's declared packages.`,
        };
      }
      // The export and the arguments are the dispatcher's to check (it names what is wrong).
      const label = typeof exportName === 'string' && exportName.length <= 128 ? exportName : '?';
      return record(state, 'wasm', `${module.displayName}#${label}`, ask(run, 'wasm', moduleId as string, [exportName, wasmArgs]));
    }
    return { ok: false, code: 'invalid-data', message: `Unknown bridge call ${JSON.stringify(kind)}.` };
  }

  function record(state: RunState, kind: 'capability' | 'wasm', name: string, answer: Answer): Answer {
    return andThen(answer, (result) => {
      state.calls.push(result.ok ? { kind, name, ok: true } : { kind, name, ok: false, code: result.code });
      return result;
    });
  }

  return {
    attach(helpers) {
      deliver = helpers.deliver;
      callerHelper = helpers.caller;
    },
    bind(bound, runScope) {
      if (run) throw new Error('a prepared sandbox serves one run at a time');
      run = bound;
      nextWasmCall = 1;
      startedAt = bound.now();
      timeOrigin = Date.now();
      // Whatever is still unanswered when the run ends goes with the run's scope, before the context.
      runScope.manage(
        new Lifetime(bound.state.deferreds, undefined, (deferreds) => {
          for (const deferred of deferreds) deferred.dispose();
          deferreds.clear();
        }),
      );
    },
    unbind() {
      run = undefined;
    },
  };
}
