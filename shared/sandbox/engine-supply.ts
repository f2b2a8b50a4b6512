// Where runs get their engines. The invariant: no run can observe any byte another run left
// behind. A new quickjs-ng runtime and context per run do not clear the engine's linear memory,
// and guest primitives can hand that memory out without zeroing it (measured: a growable
// SharedArrayBuffer's `grow` returned the previous run's `inputs.apiKey` byte for byte), so
// inputs, secrets, fetch bodies, workspace files and other packs' sources would be readable by
// whoever runs next on the worker. Two supplies meet the invariant:
//
// - `EngineSupply` (the admission probe): a fresh WebAssembly instance with fresh memory per use,
//   made while the thread is idle. An instance costs about 1–3 ms, and each discarded 16 MB memory
//   is external memory V8 answers with about one garbage collection; fine for probes.
// - `SandboxSupply` (the sandbox workers, Node and browser): a prepared sandbox restored after
//   each run to the image of its memory from before any run (see the class comment), about
//   0.2–0.5 ms per run instead of ~3 ms to make one.
//
// Neither keeps a used engine it cannot restore: such an engine is dropped and collected.

import { instantiateQuickJsNg, zeroedForReuse, type BoundedEngine } from './engine.ts';
import { disposeSandbox, endRun, fitsRun, precompileInto, prepareSandbox, rewindSandbox, stepRandom, type PreparedSandbox } from './kernel.ts';
import { runNeedsWasm, type KernelRunRequest } from '../protocol/run.ts';

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

/** A sandbox the supply handed out, with what `retire` needs to end its run and restore it. */
export interface SuppliedSandbox {
  readonly sandbox: PreparedSandbox;
  /** The engine's linear memory (tests read it to show what a run left behind). */
  readonly memory: WebAssembly.Memory;
  /** The image this sandbox goes back to after its run; none for a one-off sandbox. */
  readonly template: Template | undefined;
}

/**
 * A prepared sandbox and the image of its engine's memory taken before any run: the memory's
 * non-zero chunks (everything else was zero). Restoring writes zeros over the whole memory and the
 * image back, so the engine's memory is again, byte for byte, that of a sandbox no run has used.
 */
interface Template {
  readonly withWasm: boolean;
  readonly sandbox: PreparedSandbox;
  readonly memory: WebAssembly.Memory;
  readonly bytes: number;
  readonly image: readonly { readonly at: number; readonly bytes: Uint8Array }[];
  /** Where the context's Math.random state (8 bytes) lives: reseeded before every run. */
  readonly randomAt: number;
  /** Where the allocator's heap end lives (see `findHeapEnd`), or undefined: restore zeroes all. */
  readonly heapEndAt: number | undefined;
  /** The heap end in the image: every non-zero byte of the image lies below it. */
  readonly heapEnd: number;
  busy: boolean;
}

const CHUNK = 4096;
const MASK64 = (1n << 64n) - 1n;

/** quickjs-ng's Math.random step (xorshift64*, the state update), to recognise its state in memory. */
function xorshiftStep(x: bigint): bigint {
  x ^= x >> 12n;
  x ^= (x << 25n) & MASK64;
  x ^= x >> 27n;
  return x;
}

/**
 * The byte offset of the context's Math.random state: the one 8-byte word that, across one call
 * of Math.random, changes exactly as the generator's state does. Undefined if there is not exactly
 * one (an engine whose generator differs): the supply then never reuses a sandbox.
 */
function findRandomState(sandbox: PreparedSandbox, memory: WebAssembly.Memory): number | undefined {
  const before = new Uint32Array(memory.buffer.slice(0));
  stepRandom(sandbox);
  // Compared as 32-bit halves (no BigInt per word: a scan of 16 MB stays a few milliseconds).
  const after = new Uint32Array(memory.buffer, 0, before.length);
  const word = (view: Uint32Array, i: number) => (BigInt(view[i + 1]!) << 32n) | BigInt(view[i]!);
  let found: number | undefined;
  for (let i = 0; i < before.length; i += 2) {
    if (before[i] === after[i] && before[i + 1] === after[i + 1]) continue;
    const old = word(before, i);
    if (old !== 0n && xorshiftStep(old) === word(after, i)) {
      if (found !== undefined) return undefined;
      found = i * 4;
    }
  }
  return found;
}

/** The memory's non-zero chunks, copied. */
function imageOf(memory: WebAssembly.Memory): { at: number; bytes: Uint8Array }[] {
  const words = new Uint32Array(memory.buffer);
  const perChunk = CHUNK / 4;
  const image: { at: number; bytes: Uint8Array }[] = [];
  for (let chunk = 0; chunk < words.length / perChunk; chunk++) {
    for (let i = chunk * perChunk; i < (chunk + 1) * perChunk; i++) {
      if (words[i] !== 0) {
        image.push({ at: chunk * CHUNK, bytes: new Uint8Array(memory.buffer.slice(chunk * CHUNK, (chunk + 1) * CHUNK)) });
        break;
      }
    }
  }
  return image;
}

/**
 * Where the engine's allocator keeps the end of its heap (emscripten's `sbrk` pointer, a static of
 * the binary: the same address in every instance). Found once per compiled module on a scratch
 * instance: the one word that holds an address at or above every byte written, grows by an
 * allocation of 4 MB, and stays when it is freed — which also shows this build never gives heap
 * back (dlmalloc without trimming), so the heap end only rises during a run and no run writes
 * above it. Undefined when not exactly one word fits: restoring then zeroes the whole memory.
 */
export async function findHeapEnd(compiled: WebAssembly.Module): Promise<number | undefined> {
  const { engine, memory } = await instantiateQuickJsNg(compiled);
  const runtime = engine.newRuntime();
  const ctx = runtime.newContext();
  try {
    const run = (code: string) => {
      const result = ctx.evalCode(code);
      if (result.error) {
        result.error.dispose();
        throw new Error('the heap probe failed');
      }
      result.value.dispose();
    };
    const before = new Uint32Array(memory.buffer.slice(0));
    run('globalThis.probe = new ArrayBuffer(4 << 20); 1');
    const grown = new Uint32Array(memory.buffer.slice(0));
    run('globalThis.probe = null; 1');
    const freed = new Uint32Array(memory.buffer, 0, before.length);
    let highest = 0;
    const bytes = new Uint8Array(grown.buffer);
    for (let i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] !== 0) {
        highest = i;
        break;
      }
    }
    let found: number | undefined;
    for (let i = 0; i < before.length; i++) {
      const rise = grown[i]! - before[i]!;
      if (rise < 4 << 20 || rise >= 5 << 20 || before[i]! < 65536 || freed[i] !== grown[i] || grown[i]! <= highest) continue;
      if (found !== undefined) return undefined;
      found = i * 4;
    }
    return found;
  } finally {
    ctx.dispose();
    runtime.dispose();
  }
}

/**
 * What was found in a compiled module's instances, once per module for every supply of the thread
 * (a worker's second supply, for nested runs, searches nothing again): where the allocator's heap
 * end lives, and where each kind's Math.random state was last (checked first, then searched).
 */
interface Found {
  heapEndAt: Promise<number | undefined> | undefined;
  readonly randomAt: Map<boolean, number>;
}
const foundByModule = new WeakMap<WebAssembly.Module, Found>();
/** Callers whose last module set a supply remembers (see `#modulesToPrecompile`). */
const CALLERS_REMEMBERED = 16;

function foundIn(compiled: WebAssembly.Module): Found {
  let found = foundByModule.get(compiled);
  if (!found) foundByModule.set(compiled, (found = { heapEndAt: undefined, randomAt: new Map() }));
  return found;
}

function locateRandom(known: Map<boolean, number>, withWasm: boolean, sandbox: PreparedSandbox, memory: WebAssembly.Memory): number | undefined {
  const at = known.get(withWasm);
  if (at !== undefined) {
    const view = new BigUint64Array(memory.buffer, at, 1);
    const old = view[0]!;
    stepRandom(sandbox);
    if (old !== 0n && view[0] === xorshiftStep(old)) return at;
  }
  const found = findRandomState(sandbox, memory);
  if (found !== undefined) known.set(withWasm, found);
  return found;
}

/** Seeds drawn from the platform's CSPRNG 64 at a time (one call instead of one per run). */
const seeds = new BigUint64Array(64);
let nextSeed = seeds.length;

/** A fresh seed for the context's Math.random (never zero: the generator would stay at zero). */
function reseed(template: Template): void {
  let seed = 0n;
  while (seed === 0n) {
    if (nextSeed === seeds.length) {
      crypto.getRandomValues(seeds);
      nextSeed = 0;
    }
    seed = seeds[nextSeed]!;
    // Used once: the slot is cleared, so no seed is ever handed out twice.
    seeds[nextSeed++] = 0n;
  }
  new BigUint64Array(template.memory.buffer, template.randomAt, 1)[0] = seed;
}

/**
 * The sandbox supply: every run gets a sandbox — engine instance, runtime and context, the
 * bridge's host functions defined and the hardening prelude evaluated (kernel.ts `prepareSandbox`)
 * — in a state no run has touched, and nothing of the making is on the run's critical path.
 *
 * Making a sandbox costs about 2.5 ms (instance, runtime, context, and compiling the prelude, the
 * largest part; `npm run bench -- kernel`), too much to pay per run when runs come in bursts. So
 * the supply makes one per kind (with or without the WASM bridge) and takes an image of its
 * engine's memory before any run; after each run (`retire`) the run's handles are freed, the
 * memory is zeroed whole and the image written back, and the context's Math.random is reseeded:
 * the engine is then, byte for byte, in the state of a sandbox no run has used (the same runtime
 * and context, as they were before any run), at about 0.5 ms. Host-side state the engine's memory
 * does not hold is per run already (the run's bridge binding, its scope, its interrupt handler and
 * module loader, set again by each run). A sandbox whose run ended badly (the engine unwound
 * mid-call, failed, or could not free the run), or whose memory grew past its 16 MB, is never
 * restored: it is freed and a new one is made on a new or zeroed memory (engine.ts
 * `zeroedForReuse`).
 *
 * When one caller's two runs in a row import the same modules, the restored sandbox also gets
 * them compiled (never evaluated) for that caller's next run, off its critical path
 * (precompile.ts: about 0.1 ms of a run importing two small files). A run is handed such a
 * sandbox only if it is that caller's and those modules are its own, identical; any other run
 * gets it back at its image first, so no run is faster for what another caller imported.
 */
export class SandboxSupply {
  readonly #compiled: Promise<WebAssembly.Module>;
  /** One template per kind (true: with the WASM bridge). */
  readonly #templates = new Map<boolean, Promise<Template>>();
  /** The same templates once built. */
  readonly #ready = new Map<boolean, Template>();
  /** Zeroed memories of retired engines, for the next instances. */
  readonly #spare: WebAssembly.Memory[] = [];
  #kind = false;
  /** Per caller (KernelRunRequest.partition), the module set of its last run retired here (see `#modulesToPrecompile`). */
  readonly #lastModuleSet = new Map<string | undefined, string | undefined>();

  /** `compile` yields the engine's compiled module; it is called once, now. */
  constructor(compile: () => Promise<WebAssembly.Module>) {
    this.#compiled = compile();
    this.#compiled.catch(() => undefined);
  }

  async #fresh(withWasm: boolean): Promise<{ sandbox: PreparedSandbox; memory: WebAssembly.Memory }> {
    const { engine, memory } = await instantiateQuickJsNg(await this.#compiled, this.#spare.pop());
    return { sandbox: prepareSandbox(engine, withWasm), memory };
  }

  async #build(withWasm: boolean): Promise<Template> {
    const compiled = await this.#compiled;
    const found = foundIn(compiled);
    found.heapEndAt ??= findHeapEnd(compiled).catch(() => undefined);
    const heapEndAt = await found.heapEndAt;
    const { sandbox, memory } = await this.#fresh(withWasm);
    const randomAt = locateRandom(found.randomAt, withWasm, sandbox, memory);
    if (randomAt === undefined) throw new Error("the engine's Math.random state could not be found; sandboxes cannot be restored");
    const image = imageOf(memory);
    const heapEnd = heapEndAt === undefined ? memory.buffer.byteLength : new Uint32Array(memory.buffer, heapEndAt, 1)[0]!;
    // The heap end must lie above everything in the image, or it is not what it was taken for.
    const usable = heapEndAt !== undefined && heapEnd <= memory.buffer.byteLength && image.every((chunk) => chunk.at < heapEnd);
    return {
      withWasm,
      sandbox,
      memory,
      bytes: memory.buffer.byteLength,
      image,
      randomAt,
      heapEndAt: usable ? heapEndAt : undefined,
      heapEnd: usable ? heapEnd : memory.buffer.byteLength,
      busy: false,
    };
  }

  /**
   * Makes the sandbox of a kind (the last run's unless told) unless it exists or is on its way;
   * resolves when it is ready. Awaited at start-up, so a worker whose engine cannot load never
   * reports ready.
   */
  prepare(withWasm = this.#kind): Promise<void> {
    let template = this.#templates.get(withWasm);
    if (!template) {
      template = this.#build(withWasm);
      template.then(
        (built) => this.#ready.set(withWasm, built),
        () => this.#templates.delete(withWasm),
      );
      this.#templates.set(withWasm, template);
    }
    return template.then(() => undefined);
  }

  /**
   * A sandbox for exactly one run, in the state no run has touched, with a fresh Math.random seed.
   * Given the run's request, one that holds modules compiled for it (`retire`) is used only if
   * they are the run's own (kernel.ts `fitsRun`); otherwise it goes back to its image first.
   */
  take(withWasm: boolean, request?: KernelRunRequest): Promise<SuppliedSandbox> {
    // The common case, with no await in between: a run's critical path starts here.
    const ready = this.takeNow(withWasm, request);
    return ready ? Promise.resolve(ready) : this.#takeLater(withWasm, request);
  }

  /** The sandbox of a kind if it is ready and free, at once (a nested run takes one so); else undefined and none is made. */
  takeNow(withWasm: boolean, request?: KernelRunRequest): SuppliedSandbox | undefined {
    this.#kind = withWasm;
    const ready = this.#ready.get(withWasm);
    return ready && !ready.busy ? this.#handOut(ready, request) : undefined;
  }

  #handOut(template: Template, request: KernelRunRequest | undefined): SuppliedSandbox | undefined {
    if (!fitsRun(template.sandbox, request?.modules ?? {}, request?.partition) && !this.#reset(template)) return undefined;
    template.busy = true;
    reseed(template);
    return { sandbox: template.sandbox, memory: template.memory, template };
  }

  async #takeLater(withWasm: boolean, request: KernelRunRequest | undefined): Promise<SuppliedSandbox> {
    await this.prepare(withWasm);
    const template = await this.#templates.get(withWasm);
    const handed = template && !template.busy ? this.#handOut(template, request) : undefined;
    // Only when runs overlap on one supply (workers run one at a time), or a reset failed: a one-off sandbox.
    return handed ?? { ...(await this.#fresh(withWasm)), template: undefined };
  }

  /**
   * The template's sandbox back to its image, as after a run; false when it cannot be (it is
   * dropped, and a new one is on its way).
   */
  #reset(template: Template): boolean {
    if (endRun(template.sandbox) && template.memory.buffer.byteLength === template.bytes) {
      restore(template);
      rewindSandbox(template.sandbox);
      return true;
    }
    this.#drop({ sandbox: template.sandbox, memory: template.memory, template });
    return false;
  }

  /** Free a sandbox that cannot be restored (its template's, or a one-off), keep its memory zeroed for the next instance if it is still at its initial size, and make a new one. */
  #drop({ sandbox, memory: used, template }: SuppliedSandbox): void {
    if (template) {
      this.#templates.delete(template.withWasm);
      this.#ready.delete(template.withWasm);
    }
    if (disposeSandbox(sandbox)) {
      const memory = zeroedForReuse(used);
      if (memory && this.#spare.length === 0) this.#spare.push(memory);
    }
    void this.prepare().catch(() => undefined);
  }

  /**
   * After the run's answer has gone: end the run and restore its sandbox (see the class comment);
   * or, when it cannot be restored, free it, keep its memory zeroed for the next instance if it is
   * still at its initial size, and make a new one. (Measured: restoring at once, in parallel with
   * the host's handling of the answer, beats waiting a moment — 0.92–1.0 ms against 1.17–1.22 ms
   * for a trivial run through the pool back to back; after idle the same.)
   */
  retire(supplied: SuppliedSandbox, ran?: KernelRunRequest): void {
    const template = supplied.template;
    const next = ran ? this.#modulesToPrecompile(ran) : undefined;
    if (!template) return this.#drop(supplied);
    if (!this.#reset(template)) return;
    template.busy = false;
    if (next) this.#precompile(template, next, ran?.partition);
  }

  /**
   * The modules to compile into the restored sandbox for the next run: the run's, when the same
   * caller's run before it (on this supply) had the same set — ids and digests, JS only. Only
   * the caller's own history decides, and only its runs may use the result (`fitsRun`), so no
   * run is faster for what another caller imported. A sandbox holding modules a run does not
   * declare, or compiled for another caller, goes back to its image before that run (about
   * 0.1 ms on its path), so a supply whose runs change set every time compiles nothing ahead.
   */
  #modulesToPrecompile(ran: KernelRunRequest): KernelRunRequest['modules'] | undefined {
    const ids = Object.keys(ran.modules);
    const set =
      ids.length === 0 || runNeedsWasm(ran)
        ? undefined
        : ids
            .map((id) => `${id}@${ran.modules[id]!.digest}`)
            .sort()
            .join(' ');
    const repeated = set !== undefined && set === this.#lastModuleSet.get(ran.partition);
    // Most recently seen callers last; a few are remembered (a supply serves one at a time).
    this.#lastModuleSet.delete(ran.partition);
    this.#lastModuleSet.set(ran.partition, set);
    if (this.#lastModuleSet.size > CALLERS_REMEMBERED) this.#lastModuleSet.delete(this.#lastModuleSet.keys().next().value);
    return repeated ? ran.modules : undefined;
  }

  /**
   * Compile `modules` into the restored sandbox for its next run (kernel.ts `precompileInto`). One
   * that fails, or that grew the engine's memory, goes back to its image (or is dropped) at once.
   */
  #precompile(template: Template, modules: KernelRunRequest['modules'], partition: string | undefined): void {
    const compiled = precompileInto(template.sandbox, modules, partition);
    if (compiled === 'failed' || (compiled === 'done' && template.memory.buffer.byteLength !== template.bytes)) this.#reset(template);
  }
}

/** Zeros over the whole memory, then the image: the memory as it was before any run. */
function restore(template: Template): void {
  const bytes = new Uint8Array(template.memory.buffer);
  // Only what lies below the heap's end can have been written (data, stack, heap; the heap end
  // only rises), so zeroing stops there: about 6–7 MB of the 16 after a small run. An end that
  // is not plausible (below the image's, past the memory) zeroes everything.
  let end = bytes.length;
  if (template.heapEndAt !== undefined) {
    const now = new Uint32Array(template.memory.buffer, template.heapEndAt, 1)[0]!;
    if (now >= template.heapEnd && now <= bytes.length) end = now;
  }
  bytes.fill(0, 0, end);
  for (const chunk of template.image) bytes.set(chunk.bytes, chunk.at);
}
