// Isolation (`isolation: true` on a declaration): the module runs in a QuickJS context of its own
// inside the run's runtime, hardened by the same prelude, with no capability the node was granted
// (its fetch, workspace and getSecret are refused: the context's run is bound with no grants), none
// of the node's inputs or globals, and of the WASM bridge only its own pack's WASM modules (WASM is
// pure: an empty import object, an instance per call). Everything it imports resolves within its
// own pack, into its own context: a helper both sides import is two instances that share nothing.
//
// The node imports the specifier as usual and gets a facade module of its own realm: each function
// export is a proxy that copies the arguments into the isolated context, calls, and copies the
// result back (a promise is awaited across; a throw comes back as an error of the node's realm
// with the pack's name and line). Other exports are copied once, at import. Only text and byte
// buffers cross (prelude-core.js `isoEncode`/`isoDecode`): neither side ever holds an object of the
// other's, so the pack cannot patch the node's prototypes, read its globals or keep an argument,
// and the node cannot reach the pack's internals. Both contexts share the run's deadline, heap
// limit and interrupt handler (they are the runtime's).

import { Lifetime, Scope, type QuickJSContext, type QuickJSDeferredPromise, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten-core';
import { LIMITS } from '../../protocol/limits.ts';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { WASM_BRIDGE_MODULE_ID } from '../../protocol/wasm-bridge.ts';
import { wasmBridgeModuleSource } from '../../packs/wasm-facade.ts';
import type { HostCall, HostCallNow } from './host-bridge.ts';
import { hardenContext, type CopyHelpers } from './sandbox.ts';
import { HOST_INPUTS_GLOBAL } from './inputs-module.ts';
import type { LoaderGraph } from './loader-policy.ts';
import type { RunState } from './run-state.ts';

/** The names the node's facade of isolated module `index` is loaded under (reserved: "sandbox:"). */
export const facadeModuleId = (index: number): string => `sandbox:isolated-facade:${index}`;
const entryModuleId = (index: number): string => `sandbox:isolated-entry:${index}`;
/** One-shot globals: the isolated entry hands the host its namespace, the node's facade takes its bridge. */
const NAMESPACE_GLOBAL = '__sandboxIsolatedNamespace';
const FACADE_GLOBAL = '__sandboxIsolatedFacade';

/** What the run's module loader asks of an isolated context (module-loader.ts). */
export interface IsolatedContextInfo {
  /** The name of the entry that imports the isolated module in its context. */
  readonly entryName: string;
  readonly moduleId: string;
  /** The isolated pack's modules only: nothing else resolves in its context. */
  readonly modules: KernelRunRequest['modules'];
  readonly graph: LoaderGraph;
}

/** The run's isolated modules: which module ids the node reaches through a facade, and which context a loader call is from. */
export interface IsolationRouting {
  facadeOf(moduleId: string): string | undefined;
  contextOf(vm: QuickJSContext): IsolatedContextInfo | undefined;
}

/** The routing as the plan makes it: each isolated context is entered once it exists. */
interface PlannedRouting extends IsolationRouting {
  bindContext(vm: QuickJSContext, info: IsolatedContextInfo): void;
}

export interface IsolationParts {
  readonly runtime: QuickJSRuntime;
  /** The node's context and its copy helpers. */
  readonly ctx: QuickJSContext;
  readonly helpers: CopyHelpers;
  /** The run's scope: every context and handle made here is freed with it. */
  readonly scope: Scope;
  readonly request: KernelRunRequest;
  readonly graph: LoaderGraph;
  readonly state: RunState;
  /** Whether the sandbox carries the WASM bridge (an isolated pack with WASM modules needs it). */
  readonly withWasm: boolean;
  readonly hostCall: HostCall;
  readonly hostCallNow?: HostCallNow;
  readonly now: () => number;
}

type Failure = { readonly ok: false; readonly code: 'invalid-data' | 'runtime-error' | 'timeout'; readonly message: string };

interface Planned {
  readonly index: number;
  readonly specifier: string;
  readonly moduleId: string;
  readonly displayName: string;
  readonly info: IsolatedContextInfo;
  readonly facadeId: string;
}

/** A copy's three parts as the prelude returns them: what it is, its text, its byte buffers. */
interface Copied {
  readonly kind: string;
  readonly text: string;
  readonly buffers: Uint8Array[];
  /** An export's copy: the key path of each function it holds, relative to the export. */
  readonly functions: string[][];
}

/** What a handle's typeof says for a value with no realm, handed between contexts as it is. */
const PRIMITIVE_TYPES = new Set(['string', 'number', 'boolean', 'undefined']);
const STANDARD_ERRORS = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'URIError', 'EvalError']);
const FRAME = /(?:\(|\s)([^\s()]+):(\d+):(\d+)\)?\s*$/;

/**
 * The run's isolation plan: each isolated specifier's module (a specifier the node did not declare
 * is refused before anything runs). Undefined when nothing is isolated.
 */
export function planIsolation(
  request: KernelRunRequest,
): { readonly ok: true; readonly routing: PlannedRouting; readonly planned: readonly Planned[] } | Failure | undefined {
  const specifiers = request.isolated ?? [];
  if (specifiers.length === 0) return undefined;
  const planned: Planned[] = [];
  const byModule = new Map<string, string>();
  for (const specifier of specifiers) {
    const moduleId = Object.hasOwn(request.entries, specifier) ? request.entries[specifier] : undefined;
    const module = moduleId !== undefined && Object.hasOwn(request.modules, moduleId) ? request.modules[moduleId] : undefined;
    if (!moduleId || !module) {
      return { ok: false, code: 'invalid-data', message: `${JSON.stringify(specifier)} is marked isolated but is not one of this node's declared packages.` };
    }
    if (byModule.has(moduleId)) continue;
    const index = planned.length;
    const own: Record<string, (typeof request.modules)[string]> = {};
    for (const [id, m] of Object.entries(request.modules)) if (m.packName === module.packName) own[id] = m;
    const info: IsolatedContextInfo = { entryName: entryModuleId(index), moduleId, modules: own, graph: { entries: {}, modules: own } };
    planned.push({ index, specifier, moduleId, displayName: module.displayName, info, facadeId: facadeModuleId(index) });
    byModule.set(moduleId, facadeModuleId(index));
  }
  const contexts = new Map<QuickJSContext, IsolatedContextInfo>();
  const routing: PlannedRouting = {
    facadeOf: (moduleId) => byModule.get(moduleId),
    contextOf: (vm) => contexts.get(vm),
    bindContext: (vm, info) => void contexts.set(vm, info),
  };
  return { ok: true, routing, planned };
}

/**
 * Makes each isolated module's context, evaluates the module there (its initialisation must settle
 * without waiting on the host), and loads the node's facade of it into the node's context under
 * `facadeModuleId`, before the node's entry runs. A failure is the run's answer.
 */
export function startIsolation(parts: IsolationParts, plan: { readonly routing: PlannedRouting; readonly planned: readonly Planned[] }): Failure | undefined {
  for (const planned of plan.planned) {
    const failed = startOne(parts, plan.routing, planned);
    if (failed) return failed;
  }
  return undefined;
}

function startOne(parts: IsolationParts, routing: PlannedRouting, planned: Planned): Failure | undefined {
  const { runtime, ctx: node, state, request } = parts;
  const own = planned.info.modules;
  const withWasm = parts.withWasm && Object.values(own).some((m) => m.kind === 'wasm');
  // The isolated context lives as long as the run: freed with the run's scope, after its handles.
  const scope = new Scope();
  parts.scope.manage(scope);
  const iso = scope.manage(runtime.newContext());
  routing.bindContext(iso, planned.info);
  const { bridge, copy: isoHelpers } = hardenContext(iso, withWasm, scope);
  // No inputs here: the binding the node's inputs module takes is removed unread.
  evalOrThrow(iso, `delete globalThis[${JSON.stringify(HOST_INPUTS_GLOBAL)}];`, 'sandbox:isolated-setup', 'global');
  if (withWasm) evalOrThrow(iso, wasmBridgeModuleSource(), WASM_BRIDGE_MODULE_ID, 'module');
  // Bound like a run with no grants, no inputs and only its own pack's modules: a capability call
  // is denied and named in the receipt as this module's; a WASM call reaches only its own pack's.
  const isolatedRequest: KernelRunRequest = { ...request, entries: {}, modules: own, inputs: {}, grants: NO_GRANTS, isolated: undefined };
  bridge.bind(
    {
      request: isolatedRequest,
      graph: planned.info.graph,
      state,
      hostCall: parts.hostCall,
      ...(parts.hostCallNow ? { hostCallNow: parts.hostCallNow } : {}),
      now: parts.now,
      isolatedAs: planned.displayName,
    },
    scope,
  );
  // Unbound before the context is freed (the scope frees in reverse order).
  scope.manage(new Lifetime(undefined, undefined, () => bridge.unbind()));

  // The module, evaluated in its context: the entry hands its namespace over through a one-shot global.
  const entrySource = `import * as ns from ${JSON.stringify(planned.moduleId)};\nglobalThis[${JSON.stringify(NAMESPACE_GLOBAL)}] = ns;\n`;
  const evaluated = iso.evalCode(entrySource, planned.info.entryName, { type: 'module' });
  if (evaluated.error) return loadFailure(iso, evaluated.error, planned, state);
  const promise = scope.manage(evaluated.value);
  for (;;) {
    const settled = iso.getPromiseState(promise);
    if (settled.type === 'fulfilled') {
      settled.value.dispose();
      break;
    }
    if (settled.type === 'rejected') return loadFailure(iso, settled.error, planned, state);
    if (state.interrupted)
      return { ok: false, code: 'timeout', message: `The isolated module ${planned.displayName} did not finish loading within the run's time limit.` };
    if (!runtime.hasPendingJob()) {
      return {
        ok: false,
        code: 'runtime-error',
        message: `The isolated module ${planned.displayName} waits on something while it loads (a WASM call or a promise that never settles); an isolated module must load without waiting.`,
      };
    }
    const jobs = runtime.executePendingJobs();
    if (jobs.error) return loadFailure(iso, jobs.error, planned, state);
  }
  const namespace = scope.manage(iso.getProp(iso.global, NAMESPACE_GLOBAL));
  evalOrThrow(iso, `delete globalThis[${JSON.stringify(NAMESPACE_GLOBAL)}];`, 'sandbox:isolated-setup', 'global');

  // Its exports: functions become proxies, anything else is copied once, now.
  const names = iso.getOwnPropertyNames(namespace, { strings: true });
  if (names.error) {
    names.error.dispose();
    throw new Error('the isolated module namespace could not be listed');
  }
  const exportNames: string[] = [];
  for (const handle of names.value) {
    exportNames.push(iso.getString(handle));
    handle.dispose();
  }
  const calls = new Map<string, number>();
  state.isolated.set(planned.specifier, { displayName: planned.displayName, calls });
  // Call targets by key path from the namespace (a function export, or a function inside an
  // exported plain object: `default.parse`), and each export's copy with its first target's index.
  const targets: string[][] = [];
  const exports: { name: string; copied: Copied; base: number }[] = [];
  for (const name of exportNames) {
    const value = iso.getProp(namespace, name);
    const label = iso.newString(name);
    try {
      const copied = readCopied(iso, iso.callFunction(isoHelpers.encode, iso.undefined, value, label, iso.true));
      if (copied.kind === 'refused')
        return { ok: false, code: 'invalid-data', message: refusedSentence(copied, `export ${JSON.stringify(name)} of ${planned.displayName}`) };
      if (copied.kind !== 'value')
        return {
          ok: false,
          code: 'invalid-data',
          message: `Export ${JSON.stringify(name)} of ${planned.displayName} could not be copied out of its isolated context.`,
        };
      exports.push({ name, copied, base: targets.length });
      for (const relative of copied.functions) targets.push([name, ...relative]);
    } finally {
      value.dispose();
      label.dispose();
    }
  }

  const targetNames = targets.map((path) => path.join('.'));

  // The node's side: a bridge object of its own realm for the facade to take once.
  const pending = new Map<number, QuickJSDeferredPromise>();
  let nextCall = 1;
  const facadeBridge = scope.manage(node.newObject());
  const argsLabel = scope.manage(node.newString('args'));
  // Each target's key path as an array of the isolated context, made at its first call.
  const pathHandles: QuickJSHandle[] = [];
  const call = scope.manage(
    node.newFunction('call', (indexHandle, ...argHandles) => {
      const index = node.typeof(indexHandle) === 'number' ? node.getNumber(indexHandle) : -1;
      const path = targets[index];
      const name = targetNames[index];
      if (path === undefined || name === undefined) return { error: node.newError('The isolated module was called the wrong way.') };
      calls.set(name, (calls.get(name) ?? 0) + 1);
      const label = () => `${name}() of ${planned.displayName} (isolated)`;
      const id = nextCall++;
      const pathHandle = (pathHandles[index] ??= keyPathHandle(iso, scope, path));
      const idHandle = iso.newNumber(id);
      let copied: Copied;
      try {
        // Arguments that are all strings, numbers, booleans or undefined have no realm: they are
        // handed over as they are, and so is a primitive answer (the common call costs no copy).
        const direct = argHandles.every((h) => PRIMITIVE_TYPES.has(node.typeof(h)));
        let answer: ReturnType<QuickJSContext['callFunction']>;
        if (direct) {
          answer = iso.callFunction(isoHelpers.invokeDirect, iso.undefined, namespace, pathHandle, settle, idHandle, ...argHandles);
          if (!answer.error && PRIMITIVE_TYPES.has(iso.typeof(answer.value))) return answer.value;
          if (!answer.error) {
            answer.value.dispose();
            answer = iso.callFunction(isoHelpers.take, iso.undefined);
          }
        } else {
          const argsArray = node.newArray();
          let args: Copied;
          try {
            argHandles.forEach((h, i) => node.setProp(argsArray, i, h));
            args = readCopied(node, node.callFunction(parts.helpers.encode, node.undefined, argsArray, argsLabel));
          } finally {
            argsArray.dispose();
          }
          if (args.kind === 'refused') return { error: raise(node, parts.helpers, 'TypeError', refusedSentence(args, `the arguments of ${label()}`)) };
          if (args.kind !== 'value') return { error: raise(node, parts.helpers, 'TypeError', `The arguments of ${label()} could not be copied.`) };
          answer = withCopyIn(iso, args, (text, buffers) =>
            iso.callFunction(isoHelpers.invoke, iso.undefined, namespace, pathHandle, text, buffers, settle, idHandle),
          );
        }
        if (answer.error) {
          // The isolated side was interrupted (its deadline is the run's) or its copy was malformed.
          answer.error.dispose();
          if (state.interrupted) return { error: node.newError('interrupted') };
          return { error: raise(node, parts.helpers, 'TypeError', `${label()} failed: its answer could not be read.`) };
        }
        copied = readCopied(iso, answer);
      } finally {
        idHandle.dispose();
      }
      if (copied.kind === 'pending') {
        const deferred = node.newPromise();
        state.deferreds.add(deferred);
        pending.set(id, deferred);
        return deferred.handle;
      }
      const settledAnswer = toNode(copied, label);
      return 'value' in settledAnswer ? settledAnswer.value : { error: settledAnswer.error };
    }),
  );
  // Called in the isolated context when a promise an export returned settles.
  const settle = scope.manage(
    iso.newFunction('settle', (idHandle, kindHandle, textHandle, buffersHandle) => {
      const id = idHandle && iso.typeof(idHandle) === 'number' ? iso.getNumber(idHandle) : -1;
      const deferred = pending.get(id);
      if (!deferred || state.closed || !node.alive) return;
      pending.delete(id);
      const copied: Copied = {
        kind: kindHandle && iso.typeof(kindHandle) === 'string' ? iso.getString(kindHandle) : '',
        text: textHandle && iso.typeof(textHandle) === 'string' ? iso.getString(textHandle) : '',
        buffers: buffersHandle ? readBuffers(iso, buffersHandle) : [],
        functions: [],
      };
      const settled = toNode(copied, () => `${planned.displayName} (isolated)`);
      if ('value' in settled) {
        deferred.resolve(settled.value);
        settled.value.dispose();
      } else {
        deferred.reject(settled.error);
        settled.error.dispose();
      }
      deferred.dispose();
      state.deferreds.delete(deferred);
    }),
  );

  /** A copy from the isolated side as a node value, or the error the node's call throws. */
  function toNode(copied: Copied, label: () => string): { value: QuickJSHandle } | { error: QuickJSHandle } {
    if (copied.kind === 'value') {
      // A primitive answer is made here at once (no call into the node's decoder).
      const made = primitiveInto(node, copied);
      if (made) return { value: made };
    }
    if (copied.kind === 'value' || copied.kind === 'throw') {
      const decoded = decodeInto(node, parts.helpers.decode, copied);
      if ('error' in decoded) return { error: raise(node, parts.helpers, 'TypeError', `${label()}: its answer could not be read.`) };
      return copied.kind === 'value' ? { value: decoded.value } : { error: decoded.value };
    }
    if (copied.kind === 'error') return { error: raise(node, parts.helpers, ...thrownError(copied.text, planned.info.graph)) };
    if (copied.kind === 'refused') return { error: raise(node, parts.helpers, 'TypeError', refusedSentence(copied, `the answer of ${label()}`)) };
    return { error: raise(node, parts.helpers, 'TypeError', `${label()}: its answer could not be read.`) };
  }

  node.setProp(facadeBridge, 'call', call);
  // The facade decodes each export's copy itself, handing in how its realm makes a target's proxy
  // and an unusable value's stand-in.
  const decodeExport = scope.manage(
    node.newFunction('decode', (indexHandle, makeHandle, unusableHandle) => {
      const index = indexHandle && node.typeof(indexHandle) === 'number' ? node.getNumber(indexHandle) : -1;
      const entry = exports[index];
      if (!entry || !makeHandle || !unusableHandle) return { error: node.newError('The isolated module was called the wrong way.') };
      const result = withCopyIn(node, entry.copied, (text, buffers) =>
        node.callFunction(parts.helpers.decode, node.undefined, text, buffers, makeHandle, unusableHandle),
      );
      return result.error ? { error: result.error } : result.value;
    }),
  );
  node.setProp(facadeBridge, 'decode', decodeExport);
  node.setProp(node.global, FACADE_GLOBAL, facadeBridge);
  const facade = evalOrNull(node, facadeSource(exports, planned.displayName, targetNames), planned.facadeId);
  if (facade) return { ok: false, code: 'runtime-error', message: `The facade of the isolated module ${planned.displayName} could not be made: ${facade}.` };
  return undefined;
}

/**
 * The node's facade: each export decoded from its copy, its functions proxies through the bridge
 * (a function inside an exported plain object too, called on its object), and what could not be
 * copied a stand-in that throws, naming the export, at any use.
 */
function facadeSource(exports: readonly { readonly name: string; readonly base: number }[], displayName: string, targetNames: readonly string[]): string {
  const lines = [
    `const b = globalThis[${JSON.stringify(FACADE_GLOBAL)}];`,
    `delete globalThis[${JSON.stringify(FACADE_GLOBAL)}];`,
    'const call = b.call;',
    'const decode = b.decode;',
    `const names = ${JSON.stringify(targetNames)};`,
    // A class cannot be constructed across: say so, rather than the engine's "not a constructor".
    `const proxy = (id) => function (...args) { if (new.target !== undefined) throw new TypeError("new " + names[id] + "() of " + ${JSON.stringify(displayName)} + " cannot be used: the module runs isolated, and an object with methods cannot cross the isolation boundary (only plain data and function calls do); import it without isolation to construct it."); return call(id, ...args); };`,
    `const unusable = (path, why) => { const refuse = () => { throw new TypeError(${JSON.stringify(displayName)} + " runs isolated: " + path + " is " + why + ", which cannot be used across the isolation boundary; only plain data and functions cross."); }; return new Proxy({}, { get: refuse, set: refuse, has: refuse, ownKeys: refuse, getPrototypeOf: refuse, setPrototypeOf: refuse, defineProperty: refuse, deleteProperty: refuse, getOwnPropertyDescriptor: refuse, isExtensible: refuse, preventExtensions: refuse }); };`,
  ];
  exports.forEach(({ name, base }, i) => {
    lines.push(`const v${i} = decode(${i}, (k) => proxy(${base} + k), unusable);`);
    lines.push(`export { v${i} as ${JSON.stringify(name)} };`);
  });
  return lines.join('\n') + '\n';
}

function readBuffers(ctx: QuickJSContext, handle: QuickJSHandle): Uint8Array[] {
  const buffers: Uint8Array[] = [];
  const length = ctx.getLength(handle) ?? 0;
  for (let i = 0; i < length; i++) {
    const item = ctx.getProp(handle, i);
    try {
      const view = ctx.getArrayBuffer(item);
      buffers.push(view.value.slice());
      view.dispose();
    } finally {
      item.dispose();
    }
  }
  return buffers;
}

function keyPathHandle(ctx: QuickJSContext, scope: Scope, path: readonly string[]): QuickJSHandle {
  const array = scope.manage(ctx.newArray());
  path.forEach((key, i) => {
    const keyHandle = ctx.newString(key);
    ctx.setProp(array, i, keyHandle);
    keyHandle.dispose();
  });
  return array;
}

/** The prelude's [kind, text, buffers] answer, read out of `ctx` (a throw from the helper itself is kind "failed"). */
function readCopied(ctx: QuickJSContext, result: ReturnType<QuickJSContext['callFunction']>): Copied {
  if (result.error) {
    result.error.dispose();
    return { kind: 'failed', text: '', buffers: [], functions: [] };
  }
  const handle = result.value;
  // The common answer: a copy with no buffers or functions, as its bare text.
  if (ctx.typeof(handle) === 'string') {
    const text = ctx.getString(handle);
    handle.dispose();
    if (text.length > 2 * LIMITS.isolationCopyBytes) return overLimit();
    return { kind: 'value', text, buffers: [], functions: [] };
  }
  try {
    const part = (i: number) => ctx.getProp(handle, i);
    const kind = part(0);
    const text = part(1);
    const buffers = part(2);
    const functions = part(3);
    try {
      const copied: Copied = {
        kind: ctx.typeof(kind) === 'string' ? ctx.getString(kind) : '',
        text: ctx.typeof(text) === 'string' ? ctx.getString(text) : '',
        buffers: ctx.typeof(buffers) === 'object' ? readBuffers(ctx, buffers) : [],
        functions: ctx.typeof(functions) === 'string' ? keyPaths(ctx.getString(functions)) : [],
      };
      // Written by the other side's helper, but measured here: a copy past the limit never crosses.
      if (copied.text.length > 2 * LIMITS.isolationCopyBytes)
        return {
          kind: 'refused',
          text: JSON.stringify(['the value', `over the copy limit of ${LIMITS.isolationCopyBytes} bytes`]),
          buffers: [],
          functions: [],
        };
      return copied;
    } finally {
      kind.dispose();
      text.dispose();
      buffers.dispose();
      functions.dispose();
    }
  } finally {
    handle.dispose();
  }
}

const overLimit = (): Copied => ({
  kind: 'refused',
  text: JSON.stringify(['the value', `over the copy limit of ${LIMITS.isolationCopyBytes} bytes`]),
  buffers: [],
  functions: [],
});

/** An export's function key paths, as the prelude lists them (JSON); anything else lists none. */
function keyPaths(text: string): string[][] {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.every((p) => Array.isArray(p) && p.every((k) => typeof k === 'string'))) return parsed as string[][];
  } catch {
    // None.
  }
  return [];
}

/** Copies `copied`'s text and buffers into `ctx` for `use`, and frees them after. */
function withCopyIn<T>(ctx: QuickJSContext, copied: Copied, use: (text: QuickJSHandle, buffers: QuickJSHandle) => T): T {
  const text = ctx.newString(copied.text);
  if (copied.buffers.length === 0) {
    try {
      return use(text, ctx.undefined);
    } finally {
      text.dispose();
    }
  }
  const buffers = ctx.newArray();
  try {
    copied.buffers.forEach((bytes, i) => {
      const buffer = ctx.newArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
      ctx.setProp(buffers, i, buffer);
      buffer.dispose();
    });
    return use(text, buffers);
  } finally {
    text.dispose();
    buffers.dispose();
  }
}

/** The node's value for a copy that is one untagged primitive (a string, a finite number, a boolean, null), else undefined. */
function primitiveInto(ctx: QuickJSContext, copied: Copied): QuickJSHandle | undefined {
  const text = copied.text;
  const first = text.charCodeAt(0);
  // '[' is a tagged value; anything else is JSON of a primitive the prelude wrote.
  if (copied.buffers.length > 0 || first === 0x5b || Number.isNaN(first)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value === 'string') return ctx.newString(value);
  if (typeof value === 'number') return ctx.newNumber(value);
  if (value === true) return ctx.true;
  if (value === false) return ctx.false;
  if (value === null) return ctx.null;
  return undefined;
}

function decodeInto(ctx: QuickJSContext, decode: QuickJSHandle, copied: Copied): { value: QuickJSHandle } | { error: true } {
  const result = withCopyIn(ctx, copied, (text, buffers) => ctx.callFunction(decode, ctx.undefined, text, buffers));
  if (result.error) {
    result.error.dispose();
    return { error: true };
  }
  return { value: result.value };
}

/** An error of `ctx`'s realm (its standard class when the name is one), made by the prelude's `isoRaise`. */
function raise(ctx: QuickJSContext, helpers: CopyHelpers, name: string, message: string, extra = '{}'): QuickJSHandle {
  const nameHandle = ctx.newString(name);
  const messageHandle = ctx.newString(message);
  const extraHandle = ctx.newString(extra);
  try {
    const made = ctx.callFunction(helpers.raise, ctx.undefined, nameHandle, messageHandle, extraHandle);
    if (made.error) return made.error;
    return made.value;
  } finally {
    nameHandle.dispose();
    messageHandle.dispose();
    extraHandle.dispose();
  }
}

/** A refusal's sentence: where the value was and why it cannot be copied. */
function refusedSentence(copied: Copied, what: string): string {
  let path = 'a value';
  let why = 'something that cannot be copied';
  try {
    const parsed: unknown = JSON.parse(copied.text);
    if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') [path, why] = parsed as [string, string];
  } catch {
    // The default sentence stands.
  }
  return `${what.charAt(0).toUpperCase()}${what.slice(1)} cannot cross into or out of an isolated module: ${path} is ${why}. Only copies of plain data pass (undefined, null, booleans, numbers, strings, arrays, plain objects, Uint8Array, Date, Map, Set).`;
}

/** An isolated export's thrown Error, for the node: its name, its message with the pack's file and line, and its primitive own properties (as JSON). */
function thrownError(text: string, graph: LoaderGraph): [string, string, string] {
  let name = 'Error';
  let message = '';
  let stack = '';
  let extra = '{}';
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.slice(0, 3).every((part) => typeof part === 'string')) {
      [name = 'Error', message = '', stack = ''] = parsed as string[];
      const own: unknown = parsed[3];
      if (own !== null && typeof own === 'object' && !Array.isArray(own)) extra = JSON.stringify(own);
    }
  } catch {
    // An unreadable record: a plain Error.
  }
  let where = '';
  for (const raw of stack.split('\n')) {
    const match = FRAME.exec(raw.trim());
    if (!match) continue;
    const [, file = '', line = '0'] = match;
    const module = Object.hasOwn(graph.modules, file) ? graph.modules[file] : undefined;
    if (module) {
      where = ` (in ${module.displayName}, line ${line}, isolated)`;
      break;
    }
  }
  return [STANDARD_ERRORS.has(name) || /^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : 'Error', `${message}${where}`, extra];
}

function loadFailure(iso: QuickJSContext, error: QuickJSHandle, planned: Planned, state: RunState): Failure {
  const info = iso.dump(error) as { name?: unknown; message?: unknown; stack?: unknown } | unknown;
  error.dispose();
  if (state.interrupted)
    return { ok: false, code: 'timeout', message: `The isolated module ${planned.displayName} did not finish loading within the run's time limit.` };
  const record = typeof info === 'object' && info !== null ? (info as { name?: unknown; message?: unknown; stack?: unknown }) : { message: String(info) };
  const [name, message] = thrownError(
    JSON.stringify([String(record.name ?? 'Error'), String(record.message ?? ''), String(record.stack ?? '')]),
    planned.info.graph,
  );
  return { ok: false, code: 'runtime-error', message: `The isolated module ${planned.displayName} failed while it loaded: ${name}: ${message}` };
}

function evalOrThrow(ctx: QuickJSContext, source: string, name: string, type: 'global' | 'module'): void {
  const failed = evalOrNull(ctx, source, name, type);
  if (failed) throw new Error(`the kernel's ${name} failed: ${failed}`);
}

/** Evaluates the kernel's own code in `ctx`; the error's text, or undefined when it ran. */
function evalOrNull(ctx: QuickJSContext, source: string, name: string, type: 'global' | 'module' = 'module'): string | undefined {
  const result = ctx.evalCode(source, name, { type, ...(type === 'global' ? { strict: true } : {}) });
  if (result.error) {
    const info = ctx.dump(result.error) as unknown;
    result.error.dispose();
    return JSON.stringify(info);
  }
  result.value.dispose();
  return undefined;
}
