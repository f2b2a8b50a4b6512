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

import { instantiateQuickJsNg, type BoundedEngine } from './engine.ts';

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
