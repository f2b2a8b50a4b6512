// Where the admission probe (probe-worker.ts) gets its engines: a new WebAssembly instance with new
// memory for every probe, made while the thread is idle, so one pack's top level can never read
// what another pack's source or top level left in an engine's memory (a new runtime and context
// do not clear it). An instance costs about 1–3 ms and each discarded 16 MB memory is external
// memory V8 answers with about one garbage collection: fine for probes. The sandbox workers
// restore one engine's memory instead (shared/sandbox/supply/sandbox-supply.ts), at 0.2–0.5 ms a run.

import { instantiateQuickJsNg, type BoundedEngine } from '../../shared/sandbox/supply/engine.ts';

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
