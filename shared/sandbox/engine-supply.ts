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
import { disposeSandbox, endRun, evaluateImageInto, fitsRun, prepareSandbox, rewindSandbox, stepRandom, type PreparedSandbox } from './kernel.ts';
import type { KernelRunRequest } from '../protocol/run.ts';
import { buildEntryModule } from './entry-transform.ts';
import { imagePlan, type ImagePlan } from './module-image.ts';

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
  /** A module-set sandbox's plan key (module-image.ts); undefined for the plain sandbox of a kind. */
  readonly key: string | undefined;
  /** What keeping it costs: its engine memory and its image, in bytes. */
  readonly cost: number;
}

export interface SandboxSupplyOptions {
  /** Engine memory and images the module-set sandboxes may hold together (default IMAGE_BUDGET_BYTES). */
  readonly imageBudgetBytes?: number;
}

/**
 * The module-set sandboxes one supply keeps: about three sets of a large library (zod's sandbox:
 * a 16 MB engine memory and a ~3 MB image), many of small packs. A worker has one such supply.
 */
export const IMAGE_BUDGET_BYTES = 64 * 1024 * 1024;
/** The longest a module set's evaluation into an image may take; past it the set is evaluated per run. */
const IMAGE_BUILD_MS = 10_000;
/** Module sets refused an image that a supply remembers. */
const REFUSALS_REMEMBERED = 256;

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

/**
 * The memory's non-zero chunks below `limit`, copied into one buffer. Reading a page the engine
 * never touched costs a page fault, so the scan of a 16 MB memory spent ~10 ms on its untouched
 * top alone; and slicing chunks out one by one (an ArrayBuffer each) cost as much again
 * (measured): a set's image is scanned only up to its heap end, once the heap end is known good.
 */
function imageOf(memory: WebAssembly.Memory, limit = memory.buffer.byteLength): { at: number; bytes: Uint8Array }[] {
  const buffer = memory.buffer;
  const words = new Int32Array(buffer, 0, Math.min(limit, buffer.byteLength) / 4);
  const perChunk = CHUNK / 4;
  const used: number[] = [];
  for (let chunk = 0, count = Math.ceil(words.length / perChunk); chunk < count; chunk++) {
    for (let i = chunk * perChunk, end = Math.min(i + perChunk, words.length); i < end; i++) {
      if (words[i] !== 0) {
        used.push(chunk);
        break;
      }
    }
  }
  const all = new Uint8Array(used.length * CHUNK);
  const bytes = new Uint8Array(buffer);
  return used.map((chunk, k) => {
    all.set(bytes.subarray(chunk * CHUNK, (chunk + 1) * CHUNK), k * CHUNK);
    return { at: chunk * CHUNK, bytes: all.subarray(k * CHUNK, (k + 1) * CHUNK) };
  });
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
  /** Set once a whole-memory image showed nothing above the heap end: later images stop there. */
  heapEndChecked: boolean;
  readonly randomAt: Map<boolean, number>;
}
const foundByModule = new WeakMap<WebAssembly.Module, Found>();

function foundIn(compiled: WebAssembly.Module): Found {
  let found = foundByModule.get(compiled);
  if (!found) foundByModule.set(compiled, (found = { heapEndAt: undefined, heapEndChecked: false, randomAt: new Map() }));
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
 * mid-call, failed, or could not free the run), or whose memory grew past its size, is never
 * restored: it is freed and a new one is made on a new or zeroed memory (engine.ts
 * `zeroedForReuse`).
 *
 * Runs that import modules get, besides, a sandbox per module set (module-image.ts): the set
 * evaluated once into a sandbox of its own with no capabilities and no inputs, and the image
 * taken then. The first run of a set pays that evaluation (what it would have paid evaluating the
 * set itself), every later one of the same caller finds its imports evaluated; after each run the
 * sandbox goes back to that image, exactly as the plain one goes back to its own. They are kept
 * least recently used first, up to `imageBudgetBytes` of engine memory and images; a set whose
 * evaluation cannot be imaged is remembered, and its runs evaluate it themselves, as before.
 */
export class SandboxSupply {
  readonly #compiled: Promise<WebAssembly.Module>;
  /** One template per kind (true: with the WASM bridge). */
  readonly #templates = new Map<boolean, Promise<Template>>();
  /** The same templates once built. */
  readonly #ready = new Map<boolean, Template>();
  /** Module-set sandboxes by plan key, least recently used first. */
  readonly #images = new Map<string, Template>();
  /** What the module-set sandboxes hold: engine memories and images, in bytes. */
  #imageBytes = 0;
  readonly #imageBudget: number;
  /** Plans whose sets cannot be imaged, with why; a bounded few, most recent last. */
  readonly #refused = new Map<string, string>();
  /**
   * A prepared sandbox with nothing evaluated, by kind, for the next module set's image: made
   * after a run on a set's sandbox has retired, so a new set's first run does not wait for an
   * engine instance and the prelude (about 6–8 ms).
   */
  readonly #blank = new Map<boolean, Promise<{ sandbox: PreparedSandbox; memory: WebAssembly.Memory } | undefined>>();
  /** Zeroed memories of retired engines, for the next instances. */
  readonly #spare: WebAssembly.Memory[] = [];
  #kind = false;

  /** `compile` yields the engine's compiled module; it is called once, now. */
  constructor(compile: () => Promise<WebAssembly.Module>, options: SandboxSupplyOptions = {}) {
    this.#compiled = compile();
    this.#compiled.catch(() => undefined);
    this.#imageBudget = options.imageBudgetBytes ?? IMAGE_BUDGET_BYTES;
  }

  /** What the module-set sandboxes hold now, in bytes (engine memories and images), and how many there are. */
  get images(): { readonly count: number; readonly bytes: number } {
    return { count: this.#images.size, bytes: this.#imageBytes };
  }

  /** Why the set a plan names was not imaged, if it was refused (for tests and diagnostics). */
  refusal(key: string): string | undefined {
    return this.#refused.get(key);
  }

  /**
   * A new sandbox with nothing compiled ahead. The plain sandbox does not compile the web parts
   * (guest-web.ts) into its image: that made every sandbox 5 -> 27 ms to make, and `bench load`'s
   * ordinary runs 1.5-2x slower in bursts (new workers and replaced sandboxes wait for it); a run
   * that uses URL pays its part's compile instead (about 9 ms). A set's image compiles the parts
   * its sources name (kernel.ts `evaluateImageInto`).
   */
  async #fresh(withWasm: boolean): Promise<{ sandbox: PreparedSandbox; memory: WebAssembly.Memory }> {
    const { engine, memory } = await instantiateQuickJsNg(await this.#compiled, this.#spare.pop());
    return { sandbox: prepareSandbox(engine, withWasm), memory };
  }

  /** The template of a sandbox made just now (its image taken as it is), or undefined when its engine's state cannot be found. */
  async #templateOf(withWasm: boolean, sandbox: PreparedSandbox, memory: WebAssembly.Memory, key?: string): Promise<Template | undefined> {
    const compiled = await this.#compiled;
    const found = foundIn(compiled);
    found.heapEndAt ??= findHeapEnd(compiled).catch(() => undefined);
    const heapEndAt = await found.heapEndAt;
    const randomAt = locateRandom(found.randomAt, withWasm, sandbox, memory);
    if (randomAt === undefined) return undefined;
    const heapEnd = heapEndAt === undefined ? memory.buffer.byteLength : new Uint32Array(memory.buffer, heapEndAt, 1)[0]!;
    const trusted = found.heapEndChecked && heapEndAt !== undefined && heapEnd <= memory.buffer.byteLength;
    const image = imageOf(memory, trusted ? Math.ceil(heapEnd / CHUNK) * CHUNK : undefined);
    // The heap end must lie above everything in the image, or it is not what it was taken for.
    const usable = trusted || (heapEndAt !== undefined && heapEnd <= memory.buffer.byteLength && image.every((chunk) => chunk.at < heapEnd));
    if (usable) found.heapEndChecked = true;
    const bytes = memory.buffer.byteLength;
    return {
      withWasm,
      sandbox,
      memory,
      bytes,
      image,
      randomAt,
      heapEndAt: usable ? heapEndAt : undefined,
      heapEnd: usable ? heapEnd : bytes,
      busy: false,
      key,
      cost: bytes + image.length * CHUNK,
    };
  }

  async #build(withWasm: boolean): Promise<Template> {
    const { sandbox, memory } = await this.#fresh(withWasm);
    const template = await this.#templateOf(withWasm, sandbox, memory);
    if (!template) throw new Error("the engine's Math.random state could not be found; sandboxes cannot be restored");
    return template;
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
   * Given the run's request: for a run that imports modules, the sandbox of its module set at its
   * image (made now, by evaluating the set, for its first run); otherwise, or when the set cannot
   * be imaged, the plain sandbox of its kind.
   */
  take(withWasm: boolean, request?: KernelRunRequest): Promise<SuppliedSandbox> {
    const plan = request ? planFor(request, withWasm) : undefined;
    if (plan) {
      const image = this.#images.get(plan.key);
      if (image && !image.busy && fitsRun(image.sandbox, request!.modules)) return Promise.resolve(this.#handOutImage(image));
      if (!image && !this.#refused.has(plan.key)) return this.#buildImage(plan, withWasm).then((built) => built ?? this.#takePlain(withWasm));
    }
    return this.#takePlain(withWasm);
  }

  #takePlain(withWasm: boolean): Promise<SuppliedSandbox> {
    // The common case, with no await in between: a run's critical path starts here.
    const ready = this.takeNow(withWasm);
    return ready ? Promise.resolve(ready) : this.#takeLater(withWasm);
  }

  /** The plain sandbox of a kind if it is ready and free, at once (a nested run takes one so); else undefined and none is made. */
  takeNow(withWasm: boolean): SuppliedSandbox | undefined {
    this.#kind = withWasm;
    const ready = this.#ready.get(withWasm);
    return ready && !ready.busy ? this.#handOut(ready) : undefined;
  }

  #handOut(template: Template): SuppliedSandbox {
    template.busy = true;
    reseed(template);
    return { sandbox: template.sandbox, memory: template.memory, template };
  }

  #handOutImage(template: Template): SuppliedSandbox {
    // Most recently used last.
    this.#images.delete(template.key!);
    this.#images.set(template.key!, template);
    return this.#handOut(template);
  }

  async #takeLater(withWasm: boolean): Promise<SuppliedSandbox> {
    await this.prepare(withWasm);
    const template = await this.#templates.get(withWasm);
    const handed = template && !template.busy ? this.#handOut(template) : undefined;
    // Only when runs overlap on one supply (workers run one at a time), or a reset failed: a one-off sandbox.
    return handed ?? { ...(await this.#fresh(withWasm)), template: undefined };
  }

  /**
   * Evaluate a plan's set into a new sandbox and keep it at its image (module-image.ts), handed
   * out busy for the run that asked; undefined when the set cannot be imaged (remembered, so its
   * runs evaluate it themselves from then on).
   */
  async #buildImage(plan: ImagePlan, withWasm: boolean): Promise<SuppliedSandbox | undefined> {
    let fresh: { sandbox: PreparedSandbox; memory: WebAssembly.Memory };
    try {
      const blank = this.#blank.get(withWasm);
      this.#blank.delete(withWasm);
      fresh = (await blank) ?? (await this.#fresh(withWasm));
    } catch {
      return undefined;
    }
    const built = evaluateImageInto(fresh.sandbox, plan, () => performance.now(), IMAGE_BUILD_MS);
    const template = built.ok ? await this.#templateOf(withWasm, fresh.sandbox, fresh.memory, plan.key) : undefined;
    if (!template) {
      this.#refuse(plan.key, built.ok ? "the engine's state could not be found" : built.reason);
      this.#free(fresh.sandbox, fresh.memory);
      return undefined;
    }
    this.#images.set(plan.key, template);
    this.#imageBytes += template.cost;
    this.#evict();
    return this.#handOut(template);
  }

  #refuse(key: string, reason: string): void {
    this.#refused.set(key, reason);
    if (this.#refused.size > REFUSALS_REMEMBERED) this.#refused.delete(this.#refused.keys().next().value!);
  }

  /** Module-set sandboxes past the budget go, least recently used first (never one in use). */
  #evict(): void {
    for (const template of [...this.#images.values()]) {
      if (this.#imageBytes <= this.#imageBudget) return;
      if (!template.busy) this.#dropImage(template);
    }
  }

  #dropImage(template: Template): void {
    if (this.#images.get(template.key!) === template) {
      this.#images.delete(template.key!);
      this.#imageBytes -= template.cost;
    }
    this.#free(template.sandbox, template.memory);
  }

  /** Free a sandbox, and keep its memory zeroed for the next instance if it is still at its initial size. */
  #free(sandbox: PreparedSandbox, memory: WebAssembly.Memory): void {
    if (disposeSandbox(sandbox)) {
      const zeroed = zeroedForReuse(memory);
      if (zeroed && this.#spare.length === 0) this.#spare.push(zeroed);
    }
  }

  /**
   * The template's sandbox back to its image, as after a run; false when it cannot be (it is
   * dropped, and a plain one is made anew).
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

  /** Free a sandbox that cannot be restored (a template's, or a one-off); a plain template is made anew. */
  #drop({ sandbox, memory, template }: SuppliedSandbox): void {
    if (template?.key !== undefined) return this.#dropImage(template);
    if (template) {
      this.#templates.delete(template.withWasm);
      this.#ready.delete(template.withWasm);
    }
    this.#free(sandbox, memory);
    void this.prepare().catch(() => undefined);
  }

  /**
   * After the run's answer has gone: end the run and restore its sandbox (see the class comment);
   * or, when it cannot be restored, free it, keep its memory zeroed for the next instance if it is
   * still at its initial size, and (for a plain one) make a new one. (Measured: restoring at once,
   * in parallel with the host's handling of the answer, beats waiting a moment — 0.92–1.0 ms
   * against 1.17–1.22 ms for a trivial run through the pool back to back; after idle the same.)
   */
  retire(supplied: SuppliedSandbox): void {
    const template = supplied.template;
    if (!template) return this.#drop(supplied);
    if (!this.#reset(template)) return;
    template.busy = false;
    if (template.key !== undefined) {
      this.#evict();
      if (!this.#blank.has(template.withWasm)) {
        this.#blank.set(
          template.withWasm,
          this.#fresh(template.withWasm).catch(() => undefined),
        );
      }
    }
  }
}

/** The image plan for a run: its entry's imports, in order, over its resolution (none for code that does not parse). */
function planFor(request: KernelRunRequest, withWasm: boolean): ImagePlan | undefined {
  if (Object.keys(request.modules).length === 0) return undefined;
  const entry = buildEntryModule(request.code);
  if (!entry.ok) return undefined;
  return imagePlan(
    request,
    entry.value.imports.map((i) => i.specifier),
    withWasm,
  );
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
  // Each byte below the end is written once: the image's chunks where it has them (in address
  // order), zeros between and after them (a module-set image is a few MB: writing it over zeros
  // doubled the cost of every restore).
  let at = 0;
  for (const chunk of template.image) {
    if (chunk.at > at) bytes.fill(0, at, Math.min(chunk.at, end));
    bytes.set(chunk.bytes, chunk.at);
    at = chunk.at + chunk.bytes.length;
  }
  if (end > at) bytes.fill(0, at, end);
}
