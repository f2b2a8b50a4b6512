// A sandbox: a quickjs-ng runtime and context on one engine instance, hardened by the guest prelude
// with the bridge's host functions defined (steps 1–2 of kernel.ts's order of events), made before
// its run is known. Its lifecycle is one state field, moved only by `#move` along `MOVES`:
//   fresh ─run─▶ running ─endRun─▶ ended ─rewind─▶ fresh, or compiled when it holds a module set;
//   fresh ─image─▶ running ─endRun─▶ compiled;  running ─▶ tainted | broken;  any ─▶ disposed.
// The invariant: a run starts only on a fresh or compiled sandbox, so an ended one serves again only
// once the supply has put its engine's memory back to its snapshot (memory-snapshot.ts) and rewound
// it. A misuse throws a named error (errors.ts) and leaves the state as it was.

import { Scope, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { LIMITS } from '../../protocol/limits.ts';
import { runNeedsWasm, type KernelRunRequest } from '../../protocol/run.ts';
import { WASM_BRIDGE_MODULE_ID } from '../../protocol/wasm-bridge.ts';
import { wasmBridgeModuleSource } from '../../packs/wasm-facade.ts';
import { SandboxAlreadyUsed, SandboxImageMismatch, SandboxMisuse, SandboxNeedsWasm, SandboxNotRewindable, SandboxUseAfterDispose } from './errors.ts';
import { PRELUDE_SCRIPT_NAME, guestPreludeSource } from './guest-prelude.ts';
import { installHostBridge, type HostBridge } from './host-bridge.ts';
import { HOST_INPUTS_GLOBAL, INPUTS_MODULE_ID } from './inputs-module.ts';
import { fits, type ImageRecord } from '../supply/module-image.ts';

/**
 * fresh: no run has used it; compiled: a module set was evaluated into it and nothing else;
 * running: a run (or the set's evaluation) holds it; ended: its run was freed, its memory not yet
 * restored; tainted: the engine failed on the host side (it may be freed, never used); broken: the
 * engine was unwound mid-call (freeing it would trip its assertions: it is retired whole);
 * disposed: freed.
 */
export type SandboxState = 'fresh' | 'compiled' | 'running' | 'ended' | 'tainted' | 'broken' | 'disposed';

/** Where each state may go; any other move is a misuse. */
const MOVES: { readonly [S in SandboxState]: readonly SandboxState[] } = {
  // `ended` straight from fresh or compiled: a sandbox handed out and retired without a run.
  fresh: ['running', 'ended', 'disposed'],
  compiled: ['running', 'ended', 'disposed'],
  running: ['ended', 'tainted', 'broken', 'disposed'],
  ended: ['ended', 'fresh', 'compiled', 'broken', 'disposed'],
  tainted: ['disposed'],
  broken: [],
  disposed: [],
};

function misuse(from: SandboxState, to: SandboxState): SandboxMisuse {
  if (from === 'disposed') return new SandboxUseAfterDispose('the sandbox was disposed');
  if (from === 'broken') return new SandboxUseAfterDispose('the sandbox was retired: its engine was unwound mid-call');
  if (to === 'running') return new SandboxAlreadyUsed(`a sandbox serves one run only, until it is restored and rewound (this one is ${from})`);
  if (to === 'fresh' || to === 'compiled') return new SandboxNotRewindable(`only a sandbox whose run ended cleanly can be rewound (this one is ${from})`);
  return new SandboxMisuse(`a sandbox cannot go from ${from} to ${to}`);
}

/** What the sandbox holds for its whole life: runtime, context, the prelude's helpers. */
interface SandboxParts {
  /** Frees all of it, in reverse order. */
  readonly scope: Scope;
  readonly runtime: QuickJSRuntime;
  readonly ctx: QuickJSContext;
  readonly bridge: HostBridge;
  readonly serialize: QuickJSHandle;
  readonly parse: QuickJSHandle;
  /** The prelude's `warm(names)`: compiles web parts ahead (guest-web.ts), before any pack code has run. */
  readonly warm: QuickJSHandle;
  /** The prelude's copy helpers for isolated modules (isolation.ts). */
  readonly copy: CopyHelpers;
}

/** What a run, or a module set's evaluation, works with while it holds the sandbox. */
export interface SandboxLease extends Omit<SandboxParts, 'scope'> {
  /** The run's own scope (its handles, unanswered host calls): freed by `endRun`, before the sandbox's. */
  readonly scope: Scope;
  /** The module set evaluated into the sandbox, if any. */
  readonly image: ImageRecord | undefined;
}

export class Sandbox {
  /** Whether the prelude carries the WASM bridge: a run with WASM modules needs one that does. */
  readonly withWasm: boolean;
  readonly #parts: SandboxParts;
  #state: SandboxState = 'fresh';
  /** Kept across rewinds: the sandbox's memory snapshot holds the set evaluated. */
  #image: ImageRecord | undefined;
  #runScope: Scope | undefined;

  /** Made by `prepareSandbox`. */
  constructor(withWasm: boolean, parts: SandboxParts) {
    this.withWasm = withWasm;
    this.#parts = parts;
  }

  get state(): SandboxState {
    return this.#state;
  }

  /** The module set the sandbox holds evaluated, if any. */
  get image(): ImageRecord | undefined {
    return this.#image;
  }

  /**
   * Whether a run with `modules` may run here: nothing evaluated into it, or only the run's own
   * modules, identical (the supply also matched the run's plan, caller included).
   */
  fits(modules: KernelRunRequest['modules']): boolean {
    return this.#image === undefined || fits(this.#image, modules);
  }

  /** The only place the state changes: `check` may refuse (throw) a use of a live sandbox before it does. */
  #move(to: SandboxState, check?: (from: SandboxState) => void): void {
    const from = this.#state;
    if (MOVES[from].length === 0) throw misuse(from, to);
    check?.(from);
    if (!MOVES[from].includes(to)) throw misuse(from, to);
    this.#state = to;
  }

  #lease(): SandboxLease {
    const { runtime, ctx, bridge, serialize, parse, warm, copy } = this.#parts;
    this.#runScope = new Scope();
    return { runtime, ctx, bridge, serialize, parse, warm, copy, scope: this.#runScope, image: this.#image };
  }

  /** Hold the sandbox for `request`'s run (kernel.ts); it ends with `endRun`. */
  beginRun(request: KernelRunRequest): SandboxLease {
    this.#move('running', () => {
      if (!this.fits(request.modules)) throw new SandboxImageMismatch("this sandbox holds evaluated modules that are not the run's own: use another");
      if (runNeedsWasm(request) && !this.withWasm) throw new SandboxNeedsWasm('this run has WASM modules: it needs a sandbox prepared with the WASM bridge');
      // An isolated module must not be evaluated in the node's context already (isolation.ts).
      if (this.#image && (request.isolated?.length ?? 0) > 0)
        throw new SandboxImageMismatch('a run that imports a module isolated needs a sandbox that holds no evaluated modules');
    });
    return this.#lease();
  }

  /**
   * Hold a sandbox no run has used for a module set's evaluation (kernel.ts `evaluateImageInto`);
   * `keep` then makes it compiled, holding `record`, which only this lease can do.
   */
  beginImage(): SandboxLease & { readonly keep: (record: ImageRecord) => boolean } {
    this.#move('running', (from) => {
      if (from !== 'fresh') throw new SandboxAlreadyUsed(`an image is evaluated only into a sandbox no run has used (this one is ${from})`);
    });
    const keep = (record: ImageRecord): boolean => {
      if (!this.endRun()) return false;
      this.#image = record;
      this.#move('compiled');
      return true;
    };
    return { ...this.#lease(), keep };
  }

  /** The engine failed under the run on the host side: `tainted`, or `broken` when it was unwound mid-call. */
  engineFailed(how: 'tainted' | 'broken'): void {
    this.#move(how);
  }

  /**
   * End the run without freeing the sandbox: the run's handles and unanswered host calls are freed
   * and its bridge unbound. False when the sandbox must not serve again (tainted, unwound, or the
   * freeing failed); it must then be disposed of or dropped.
   */
  endRun(): boolean {
    if (this.#state === 'tainted' || this.#state === 'broken' || this.#state === 'disposed') return false;
    const { bridge, runtime } = this.#parts;
    try {
      this.#runScope?.dispose();
      this.#runScope = undefined;
      bridge.unbind();
      // The run's interrupt handler and module loader go too, on both sides: the engine's memory
      // goes back to a snapshot in which neither is set, and quickjs-emscripten only enables the
      // engine's side of a handler when its own side had none (a restored sandbox kept the JS side
      // set and the engine's off: no interrupt, no deadline, no hold, measured).
      runtime.removeInterruptHandler();
      runtime.removeModuleLoader();
    } catch {
      this.#move('broken');
      return false;
    }
    this.#move('ended');
    return true;
  }

  /** Serve one more run: only once `endRun` succeeded and the engine's memory was restored to its snapshot. */
  rewind(): void {
    this.#move(this.#image ? 'compiled' : 'fresh');
  }

  /**
   * Call the context's own Math.random once (its result dropped), on a sandbox no run holds: the
   * supply does it before taking a snapshot, to find where the generator's state lives and reseed it per run.
   */
  stepRandom(): void {
    if (this.#state !== 'fresh' && this.#state !== 'compiled') throw misuse(this.#state, 'running');
    const { ctx } = this.#parts;
    const math = ctx.getProp(ctx.global, 'Math');
    const random = ctx.getProp(math, 'random');
    const result = ctx.callFunction(random, math);
    if (result.error) result.error.dispose();
    else result.value.dispose();
    random.dispose();
    math.dispose();
  }

  /**
   * Free the sandbox (used or not); false when it could not be freed cleanly (the engine is then
   * suspect and must be dropped) or was retired whole (`broken`: its scope is left unfreed).
   */
  dispose(): boolean {
    if (this.#state === 'broken') return false;
    if (this.#state === 'disposed') return true;
    this.#move('disposed');
    try {
      this.#runScope?.dispose();
      this.#runScope = undefined;
      this.#parts.scope.dispose();
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Compile the bridge library and the named web parts (guest-web.ts) into the sandbox ahead of any
 * run, so they are in its snapshot: what a run compiles is gone with the run, and that cost every
 * run that used it ~1 ms for the library (any capability, WASM call or bytes), 10–15 ms for URL's
 * part. Done before any pack code runs (a sandbox being prepared, or a set about to be evaluated
 * into an image); compiling what is already compiled is a no-op.
 */
export function warmGuest(ctx: QuickJSContext, warm: QuickJSHandle, webParts: readonly string[]): void {
  const list = ctx.newString(webParts.join(' '));
  try {
    const done = ctx.callFunction(warm, ctx.undefined, list);
    if (done.error) {
      const info = ctx.dump(done.error) as unknown;
      done.error.dispose();
      throw new Error(`the bridge library or web parts could not be compiled: ${JSON.stringify(info)}`);
    }
    done.value.dispose();
  } finally {
    list.dispose();
  }
}

/** The prelude helpers a context's copies for isolated modules go through (prelude-core.js, isolation.ts). */
export interface CopyHelpers {
  readonly encode: QuickJSHandle;
  readonly decode: QuickJSHandle;
  readonly invoke: QuickJSHandle;
  readonly invokeDirect: QuickJSHandle;
  readonly take: QuickJSHandle;
  readonly raise: QuickJSHandle;
}

/** A context's bridge and the prelude's helpers, as `hardenContext` leaves them. */
export interface HardenedContext {
  readonly bridge: HostBridge;
  readonly serialize: QuickJSHandle;
  readonly parse: QuickJSHandle;
  readonly warm: QuickJSHandle;
  readonly copy: CopyHelpers;
}

/**
 * Step 2 on one context: the bridge's host functions, then the prelude that captures and deletes
 * them; its helpers are kept in `scope`. Every context a run's code can reach is made so: the
 * sandbox's own and each isolated module's (isolation.ts). Throws when the prelude fails.
 */
export function hardenContext(ctx: QuickJSContext, withWasm: boolean, scope: Scope): HardenedContext {
  // Host functions first: the prelude captures and deletes them.
  const bridge = installHostBridge(ctx, withWasm);
  const prelude = ctx.evalCode(guestPreludeSource(withWasm), PRELUDE_SCRIPT_NAME, { type: 'global', strict: true });
  if (prelude.error) {
    const info = ctx.dump(prelude.error) as unknown;
    prelude.error.dispose();
    throw new Error(`the guest prelude failed: ${JSON.stringify(info)}`);
  }
  const helpers = scope.manage(prelude.value);
  const take = (name: string) => scope.manage(ctx.getProp(helpers, name));
  bridge.attach({ deliver: take('deliver'), caller: take('caller') });
  return {
    bridge,
    serialize: take('serialize'),
    parse: take('parse'),
    warm: take('warm'),
    copy: {
      encode: take('isoEncode'),
      decode: take('isoDecode'),
      invoke: take('isoInvoke'),
      invokeDirect: take('isoInvokeDirect'),
      take: take('isoTake'),
      raise: take('isoRaise'),
    },
  };
}

/**
 * Steps 1–2: a new runtime and context on `engine`, the bridge's host functions, the prelude.
 * Throws when the engine or the prelude fails (engine trouble, never a guest's: no guest code has run).
 */
export function prepareSandbox(engine: QuickJSWASMModule, withWasm: boolean, warmWeb: readonly string[] = []): Sandbox {
  const scope = new Scope();
  try {
    const runtime = scope.manage(engine.newRuntime());
    runtime.setMemoryLimit(LIMITS.guestMemoryBytes);
    runtime.setMaxStackSize(LIMITS.guestStackBytes);
    const ctx = scope.manage(runtime.newContext());
    const { bridge, serialize, parse, warm, copy } = hardenContext(ctx, withWasm, scope);
    // The kernel's own modules, before any pack: each takes its one-shot binding (inputs, and the
    // WASM bridge where there is one), so no module ever sees either.
    evaluateKernelModule(ctx, INPUTS_MODULE_ID, inputsModuleSource());
    if (withWasm) evaluateKernelModule(ctx, WASM_BRIDGE_MODULE_ID, wasmBridgeModuleSource());
    warmGuest(ctx, warm, warmWeb);
    return new Sandbox(withWasm, { scope, runtime, ctx, bridge, serialize, parse, warm, copy });
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

/** Evaluate one of the kernel's own modules into a new context (engine trouble throws: no guest code has run). */
function evaluateKernelModule(ctx: QuickJSContext, name: string, source: string): void {
  const result = ctx.evalCode(source, name, { type: 'module' });
  if (result.error) {
    const info = ctx.dump(result.error) as unknown;
    result.error.dispose();
    throw new Error(`the kernel module ${name} failed: ${JSON.stringify(info)}`);
  }
  result.value.dispose();
}
