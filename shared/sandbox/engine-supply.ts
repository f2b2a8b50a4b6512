// The engine supply: every run gets an engine instance no other run has touched, and the worker
// makes the next one while it is idle, so the run does not wait for it.
//
// Why a fresh instance per run: a new quickjs-ng runtime and context per run do not clear the
// engine's linear memory, and guest primitives can hand that memory out without zeroing it
// (measured: a growable SharedArrayBuffer's `grow` returned the previous run's `inputs.apiKey`
// byte for byte). Inputs, secrets, fetch bodies, workspace files and other packs' sources would
// all be readable by whoever runs next on the worker. The invariant is that no run can observe
// any byte another run left behind; a fresh WebAssembly instance with fresh memory meets it
// whatever the engine's allocator or a future engine bug does.
//
// Cost: the module is compiled once per thread; an instance of it takes about 1–3 ms (see `npm
// run bench`, kernel engine rows), which `prepare()` moves off the run's critical path. Each
// discarded instance's memory (16 MB committed at least) is external memory to V8, which answers
// with about one garbage collection per instance (measured with --trace-gc: the largest share of
// a busy worker's CPU); it mostly happens when the next instance is allocated, i.e. while idle.
// The supply holds at most one prepared engine and never a used one: `take()` hands the engine
// over and forgets it, so once the run drops it the instance and its memory can be collected.

import { instantiateQuickJsNg, zeroedForReuse, type BoundedEngine } from './engine.ts';
import { disposeSandbox, prepareSandbox, type PreparedSandbox } from './kernel.ts';

export class EngineSupply {
  readonly #compiled: Promise<WebAssembly.Module>;
  #next: Promise<BoundedEngine> | undefined;

  /** `compile` yields the engine's compiled module; it is called once, now. */
  constructor(compile: () => Promise<WebAssembly.Module>) {
    this.#compiled = compile();
    // Failures surface through prepare() and take(); an idle worker must not die of them unasked.
    this.#compiled.catch(() => undefined);
  }

  /**
   * Makes the next engine unless one is ready or on its way; resolves when it is ready. Call it
   * at start-up (awaited: a worker whose engine cannot load must not report ready) and whenever
   * the worker becomes idle (not awaited).
   */
  prepare(): Promise<void> {
    if (!this.#next) {
      const next = this.#compiled.then(instantiateQuickJsNg);
      next.catch(() => undefined);
      this.#next = next;
    }
    return this.#next.then(() => undefined);
  }

  /**
   * An engine for exactly one run: the prepared one if there is one, else a new one now. The
   * supply keeps no reference to it; the caller drops it after the run and calls `prepare()`.
   */
  take(): Promise<BoundedEngine> {
    const next = this.#next ?? this.#compiled.then(instantiateQuickJsNg);
    this.#next = undefined;
    return next;
  }
}

/** A sandbox the supply handed out, with what `retire` needs to free it and reuse its memory. */
export interface SuppliedSandbox {
  readonly sandbox: PreparedSandbox;
  /** The engine's linear memory (tests read it to show what a run left behind). */
  readonly memory: WebAssembly.Memory;
}

/**
 * The sandbox supply: like the engine supply, but what it prepares while the worker is idle is a
 * whole sandbox — a fresh engine instance with its runtime and context made, the bridge's host
 * functions defined and the hardening prelude evaluated (kernel.ts `prepareSandbox`; measured
 * about 1.5 ms on top of the instance, which no run should wait for). A run takes it and uses it
 * once (`runPrepared`); the worker hands it back with `retire` after answering, which frees it,
 * drops the engine, zeroes its memory whole for the next instance (engine.ts `zeroedForReuse`)
 * and prepares the next sandbox. No runtime, context or instance serves two runs, and no byte of
 * one run's memory reaches the next.
 * A run with WASM modules needs a sandbox whose prelude carries the WASM bridge: the supply keeps
 * at most one prepared sandbox of each kind, and prepares the kind the last run took.
 */
export class SandboxSupply {
  readonly #compiled: Promise<WebAssembly.Module>;
  /** Prepared and untouched, by kind (true: with the WASM bridge). */
  readonly #next = new Map<boolean, Promise<SuppliedSandbox>>();
  /** Zeroed memories of retired engines, for the next instances. */
  readonly #spare: WebAssembly.Memory[] = [];
  /** Used sandboxes whose retirement waits (see `retire`), and the timer that will do it. */
  readonly #pending: SuppliedSandbox[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #kind = false;

  /** `compile` yields the engine's compiled module; it is called once, now. */
  constructor(compile: () => Promise<WebAssembly.Module>) {
    this.#compiled = compile();
    this.#compiled.catch(() => undefined);
  }

  #make(withWasm: boolean): Promise<SuppliedSandbox> {
    const spare = this.#spare.pop();
    return this.#compiled
      .then((compiled) => instantiateQuickJsNg(compiled, spare))
      .then(({ engine, memory }) => ({ sandbox: prepareSandbox(engine, withWasm), memory }));
  }

  /**
   * Makes the next sandbox (of the last run's kind unless told) unless one is ready or on its way;
   * resolves when it is ready. Awaited at start-up, so a worker whose engine cannot load never
   * reports ready; not awaited after each run.
   */
  prepare(withWasm = this.#kind): Promise<void> {
    let next = this.#next.get(withWasm);
    if (!next) {
      next = this.#make(withWasm);
      next.catch(() => undefined);
      this.#next.set(withWasm, next);
    }
    return next.then(() => undefined);
  }

  /** A sandbox for exactly one run: the prepared one of its kind, else one made now. */
  take(withWasm: boolean): Promise<SuppliedSandbox> {
    this.#kind = withWasm;
    let next = this.#next.get(withWasm);
    if (!next && this.#pending.length > 0) {
      // The last run's sandbox is still waiting to be retired: do it now, so this one gets its memory.
      this.#flush();
      next = this.#next.get(withWasm);
    }
    this.#next.delete(withWasm);
    return next ?? this.#make(withWasm);
  }

  /**
   * After the run's answer has gone: free the sandbox and drop its engine; its memory is zeroed
   * and kept for the next instance only when the runtime came apart cleanly (a sandbox unwound
   * mid-call keeps its memory out of reuse). Then the next sandbox is prepared.
   *
   * With `afterMs`, that work waits a moment: the answer's way back to the user (the host's
   * thread parsing it, an HTTP response) does not share the cores with it. A run that arrives
   * meanwhile retires it first (`take`), so nothing is lost but the head start.
   */
  retire(supplied: SuppliedSandbox, afterMs?: number): void {
    this.#pending.push(supplied);
    if (afterMs === undefined) return this.#flush();
    this.#timer ??= setTimeout(() => this.#flush(), afterMs);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const supplied of this.#pending.splice(0)) {
      if (disposeSandbox(supplied.sandbox)) {
        const memory = zeroedForReuse(supplied.memory);
        if (memory && this.#spare.length === 0) this.#spare.push(memory);
      }
    }
    void this.prepare();
  }
}
