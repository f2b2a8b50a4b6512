// Where the sandbox workers (Node and browser) get their sandboxes. The invariant: no run can
// observe any byte another run left behind. A new quickjs-ng runtime and context per run do not
// clear the engine's linear memory, and guest primitives can hand that memory out without zeroing
// it (measured: a growable SharedArrayBuffer's `grow` returned the previous run's `inputs.apiKey`
// byte for byte), so inputs, secrets, fetch bodies, workspace files and other packs' sources would
// be readable by whoever runs next on the worker. So each sandbox's engine memory is put back to
// its snapshot from before any run after every run (memory-snapshot.ts); a sandbox that cannot be
// restored is freed. (The admission probe takes a new engine per probe instead: electron/compiler/.)

import { EngineStateNotFound } from '../kernel/errors.ts';
import { instantiateQuickJsNg } from './engine.ts';
import { evaluateImageInto } from '../kernel/kernel.ts';
import { reseedRandom, restoreSnapshot, takeSnapshot, zeroedForReuse, type MemorySnapshot, type RandomStateFinder } from './memory-snapshot.ts';
import { ENGINE_BASE_PAGES, PAGE } from './engine.ts';
import type { KernelRunRequest } from '../../protocol/run.ts';
import { buildEntryModule } from '../kernel/entry-transform.ts';
import { imagePlan, type ImagePlan } from './module-image.ts';
import { prepareSandbox, type Sandbox } from '../kernel/sandbox.ts';

/** A sandbox the supply handed out, with what `retire` needs to end its run and restore it. */
export interface SuppliedSandbox {
  readonly sandbox: Sandbox;
  /** The engine's linear memory (tests read it to show what a run left behind). */
  readonly memory: WebAssembly.Memory;
  /** The sandbox and snapshot it goes back to after its run; none for a one-off sandbox. */
  readonly template: Template | undefined;
}

/** A sandbox no run has used and the snapshot of its engine's memory taken then, which it goes back to after each run. */
interface Template {
  readonly withWasm: boolean;
  readonly sandbox: Sandbox;
  readonly snapshot: MemorySnapshot;
  busy: boolean;
  /** A module-set sandbox's plan key (module-image.ts); undefined for the plain sandbox of a kind. */
  readonly key: string | undefined;
}

export interface SandboxSupplyOptions {
  /** Engine memory and images the module-set sandboxes may hold together (default IMAGE_BUDGET_BYTES). */
  readonly imageBudgetBytes?: number;
  /** Replaces the search for the Math.random state (memory-snapshot.ts), for tests. */
  readonly findRandomState?: RandomStateFinder;
  /**
   * Told how far past its initial size an engine memory let go had grown: it is freed only when
   * the thread collects garbage, which an idle thread may not do for seconds (issue 30).
   */
  readonly onGrownMemoryFreed?: (grownBytes: number) => void;
}

const BASE_BYTES = ENGINE_BASE_PAGES * PAGE;

/**
 * The module-set sandboxes one supply keeps: about three sets of a large library (zod's sandbox:
 * a 16 MB engine memory and a ~3 MB image), many of small packs. A worker has one such supply.
 */
export const IMAGE_BUDGET_BYTES = 64 * 1024 * 1024;
/** The longest a module set's evaluation into an image may take; past it the set is evaluated per run. */
const IMAGE_BUILD_MS = 10_000;
/** Module sets refused an image that a supply remembers. */
const REFUSALS_REMEMBERED = 256;

/**
 * The sandbox supply: every run gets a sandbox — engine instance, runtime and context, the
 * bridge's host functions defined and the hardening prelude evaluated (sandbox.ts `prepareSandbox`)
 * — in a state no run has touched, and nothing of the making is on the run's critical path.
 *
 * Making a sandbox costs about 2.5 ms (instance, runtime, context, and compiling the prelude, the
 * largest part; `npm run bench -- kernel`), too much to pay per run when runs come in bursts. So
 * the supply makes one per kind (with or without the WASM bridge) and takes a snapshot of its
 * engine's memory before any run; after each run (`retire`) the run's handles are freed, the
 * memory is zeroed and the snapshot written back, and the context's Math.random is reseeded:
 * the engine is then, byte for byte, in the state of a sandbox no run has used (the same runtime
 * and context, as they were before any run), at about 0.5 ms. Host-side state the engine's memory
 * does not hold is per run already (the run's bridge binding, its scope, its interrupt handler and
 * module loader, set again by each run). A sandbox whose run ended badly (the engine unwound
 * mid-call, failed, or could not free the run), or whose memory grew past its size, is never
 * restored: it is freed and a new one is made on a new or zeroed memory (`zeroedForReuse`).
 *
 * An engine whose Math.random state cannot be found fails closed: the supply refuses to make its
 * plain sandbox (`EngineStateNotFound`), so the worker never reports ready and its runs answer
 * sandbox-crashed with that reason. The search only fails for an engine build other than the one
 * this was measured on, whose other assumptions (the heap end, an allocator that never trims) are
 * then unproven too; falling back to a new engine per run would hide that behind a cost paid on
 * every run (about 2.5 ms to make a sandbox, against 0.2–0.5 ms to restore one). (A module set's
 * sandbox whose state is not found is only refused its image, and its runs take the plain one.)
 *
 * Runs that import modules get, besides, a sandbox per module set (module-image.ts): the set
 * evaluated once into a sandbox of its own with no capabilities and no inputs, and the snapshot
 * taken then. The first run of a set pays that evaluation (what it would have paid evaluating the
 * set itself), every later one of the same caller finds its imports evaluated; after each run the
 * sandbox goes back to that snapshot, exactly as the plain one goes back to its own. They are kept
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
  readonly #blank = new Map<boolean, Promise<{ sandbox: Sandbox; memory: WebAssembly.Memory } | undefined>>();
  /** Zeroed memories of retired engines, for the next instances. */
  readonly #spare: WebAssembly.Memory[] = [];
  #kind = false;
  readonly #findRandomState: RandomStateFinder | undefined;
  readonly #onGrownMemoryFreed: ((grownBytes: number) => void) | undefined;
  /** Blank sandboxes made and not yet used, by kind (what `#blank` resolved to): for `heldMemoryBytes`. */
  readonly #blankMade = new Map<boolean, WebAssembly.Memory>();

  /** `compile` yields the engine's compiled module; it is called once, now. */
  constructor(compile: () => Promise<WebAssembly.Module>, options: SandboxSupplyOptions = {}) {
    this.#compiled = compile();
    this.#compiled.catch(() => undefined);
    this.#imageBudget = options.imageBudgetBytes ?? IMAGE_BUDGET_BYTES;
    this.#findRandomState = options.findRandomState;
    this.#onGrownMemoryFreed = options.onGrownMemoryFreed;
  }

  /**
   * The size of every engine memory this supply keeps once made (the sandboxes of each kind, the
   * module-set sandboxes, a blank one, a zeroed spare), in bytes, after what is on its way has
   * settled: for tests and diagnostics (no memory above the initial size outlives its run).
   */
  async heldMemoryBytes(): Promise<number[]> {
    await Promise.all([...this.#templates.values(), ...this.#blank.values()].map((p) => Promise.resolve(p).catch(() => undefined)));
    const memories = [
      ...[...this.#ready.values()].map((t) => t.snapshot.memory),
      ...[...this.#images.values()].map((t) => t.snapshot.memory),
      ...this.#blankMade.values(),
      ...this.#spare,
    ];
    return memories.map((memory) => memory.buffer.byteLength);
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
  async #fresh(withWasm: boolean): Promise<{ sandbox: Sandbox; memory: WebAssembly.Memory }> {
    const { engine, memory } = await instantiateQuickJsNg(await this.#compiled, this.#spare.pop());
    return { sandbox: prepareSandbox(engine, withWasm), memory };
  }

  /** The template of a sandbox made just now (its snapshot taken as it is), or undefined when its engine's state cannot be found. */
  async #templateOf(withWasm: boolean, sandbox: Sandbox, memory: WebAssembly.Memory, key?: string): Promise<Template | undefined> {
    const snapshot = await takeSnapshot(await this.#compiled, withWasm, memory, () => sandbox.stepRandom(), this.#findRandomState);
    return snapshot && { withWasm, sandbox, snapshot, busy: false, key };
  }

  async #build(withWasm: boolean): Promise<Template> {
    const { sandbox, memory } = await this.#fresh(withWasm);
    const template = await this.#templateOf(withWasm, sandbox, memory);
    if (template) return template;
    // Fail closed (see the class comment): the sandbox is freed and the worker does not boot.
    this.#free(sandbox, memory);
    throw new EngineStateNotFound("the engine's Math.random state could not be found; sandboxes cannot be restored");
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
      if (image && !image.busy && image.sandbox.fits(request!.modules)) return Promise.resolve(this.#handOutImage(image));
      if (!image && !this.#refused.has(plan.key)) return this.#buildImage(plan, withWasm).then((built) => built ?? this.#takePlain(withWasm));
    }
    return this.#takePlain(withWasm);
  }

  #takePlain(withWasm: boolean): Promise<SuppliedSandbox> {
    // The common case, with no await in between: a run's critical path starts here.
    const ready = this.takeNow(withWasm);
    return ready ? Promise.resolve(ready) : this.#takeLater(withWasm);
  }

  /**
   * The sandbox of the run's module set at its image if it is ready and free, at once (a nested
   * run takes one so: it cannot wait for one to be made); else undefined and none is made.
   */
  takeImageNow(withWasm: boolean, request: KernelRunRequest): SuppliedSandbox | undefined {
    const plan = planFor(request, withWasm);
    const image = plan ? this.#images.get(plan.key) : undefined;
    return image && !image.busy && image.sandbox.fits(request.modules) ? this.#handOutImage(image) : undefined;
  }

  /** The plain sandbox of a kind if it is ready and free, at once (a nested run takes one so); else undefined and none is made. */
  takeNow(withWasm: boolean): SuppliedSandbox | undefined {
    this.#kind = withWasm;
    const ready = this.#ready.get(withWasm);
    return ready && !ready.busy ? this.#handOut(ready) : undefined;
  }

  #handOut(template: Template): SuppliedSandbox {
    template.busy = true;
    reseedRandom(template.snapshot);
    return { sandbox: template.sandbox, memory: template.snapshot.memory, template };
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
    let fresh: { sandbox: Sandbox; memory: WebAssembly.Memory };
    try {
      const blank = this.#blank.get(withWasm);
      this.#blank.delete(withWasm);
      this.#blankMade.delete(withWasm);
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
    this.#imageBytes += template.snapshot.cost;
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
      this.#imageBytes -= template.snapshot.cost;
    }
    this.#free(template.sandbox, template.snapshot.memory);
  }

  /**
   * Free a sandbox, and keep its memory zeroed for the next instance if it is still at its initial
   * size and no spare is kept yet (zeroed first, a memory let go anyway stayed resident whole).
   */
  #free(sandbox: Sandbox, memory: WebAssembly.Memory): void {
    if (sandbox.dispose() && this.#spare.length === 0) {
      const zeroed = zeroedForReuse(memory);
      if (zeroed) return void this.#spare.push(zeroed);
    }
    const grown = memory.buffer.byteLength - BASE_BYTES;
    if (grown > 0) this.#onGrownMemoryFreed?.(grown);
  }

  /**
   * The template's sandbox back to its snapshot, as after a run; false when it cannot be (it is
   * dropped, and a plain one is made anew).
   */
  #reset(template: Template): boolean {
    if (template.sandbox.endRun() && restoreSnapshot(template.snapshot)) {
      template.sandbox.rewind();
      return true;
    }
    this.#drop({ sandbox: template.sandbox, memory: template.snapshot.memory, template });
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
   * still at its initial size, and (for a plain one) make a new one. The Node worker calls this
   * once the pool has handled the answer, at most 1 ms after posting it (answered-word.ts); a
   * fixed wait instead measured worse back to back (docs/performance.md).
   */
  retire(supplied: SuppliedSandbox): void {
    const template = supplied.template;
    if (!template) return this.#drop(supplied);
    if (!this.#reset(template)) return;
    template.busy = false;
    if (template.key !== undefined) {
      this.#evict();
      if (!this.#blank.has(template.withWasm)) {
        const blank = this.#fresh(template.withWasm).then(
          (made) => {
            if (this.#blank.get(template.withWasm) === blank) this.#blankMade.set(template.withWasm, made.memory);
            return made;
          },
          () => undefined,
        );
        this.#blank.set(template.withWasm, blank);
      }
    }
  }
}

/** The image plan for a run: its entry's imports, in order, over its resolution (none for code that does not parse). */
function planFor(request: KernelRunRequest, withWasm: boolean): ImagePlan | undefined {
  if (Object.keys(request.modules).length === 0) return undefined;
  // An isolated module is evaluated in a context of its own at each run, never into the node's image.
  if ((request.isolated?.length ?? 0) > 0) return undefined;
  const entry = buildEntryModule(request.code);
  if (!entry.ok) return undefined;
  return imagePlan(
    request,
    entry.value.imports.map((i) => i.specifier),
    withWasm,
  );
}
