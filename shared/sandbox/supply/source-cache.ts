// Module sources a kernel worker keeps, so a run does not carry them again. A run's request holds
// the source text of every module of its resolution (a library: hundreds of KB), and a worker is a
// thread of its own: each message is a structured clone, which copied zod's 458 KB bundle in about
// 0.5 ms a run (measured), as much as a trivial run costs. So the host sends each module's source to
// a worker once, tagged with a reference, and after that only the reference with an empty source;
// the worker fills it in from what it kept. A reference names one GuestModule object of the host
// (the catalog hands out the same frozen resolution, module objects included, for the same
// declarations on the same snapshot): a new object — another source, another snapshot — gets a new
// reference, so nothing is ever filled in from a source the host did not send for that very module.
// A worker that no longer has a source (it keeps a bounded amount) asks for the run again in full.

import type { GuestModule, KernelRunRequest } from '../../protocol/run.ts';

/**
 * Module id → reference, on a run message: a positive one, the worker keeps the module's source
 * under it; a negative one, the source was left out and the worker fills it in from the source
 * kept under its negation.
 */
export type RunSources = Readonly<Record<string, number>>;

const refs = new WeakMap<GuestModule, number>();
let nextRef = 1;

function refOf(module: GuestModule): number {
  let ref = refs.get(module);
  if (ref === undefined) refs.set(module, (ref = nextRef++));
  return ref;
}

/**
 * The host's side, one per worker: the request to post (sources the worker has left empty) and
 * the references that go with it. `forget` after the worker asked for a run again in full.
 */
export class SentSources {
  #sent = new Set<number>();

  wire(request: KernelRunRequest): { readonly request: KernelRunRequest; readonly sources: RunSources | undefined } {
    const ids = Object.keys(request.modules);
    if (ids.length === 0) return { request, sources: undefined };
    const sources: Record<string, number> = {};
    let modules: Record<string, GuestModule> | undefined;
    for (const id of ids) {
      const module = request.modules[id]!;
      const ref = refOf(module);
      if (this.#sent.has(ref)) {
        modules ??= { ...request.modules };
        modules[id] = { ...module, source: '' };
        sources[id] = -ref;
      } else {
        this.#sent.add(ref);
        sources[id] = ref;
      }
    }
    return { request: modules ? { ...request, modules } : request, sources };
  }

  forget(): void {
    this.#sent.clear();
  }
}

/** The most source text (UTF-16 code units) a worker keeps; the least recently used goes first. */
const KEPT_CHARS = 32 * 1024 * 1024;

/** The worker's side. */
export class KeptSources {
  readonly #kept = new Map<number, string>();
  readonly #max: number;
  #chars = 0;

  constructor(maxChars: number = KEPT_CHARS) {
    this.#max = maxChars;
  }

  /**
   * Fill the request's empty sources from what was kept, and keep the ones it carries; false when
   * a source it relies on is no longer kept (the host must send the run again in full). Mutates the
   * request (a message the worker parsed, its own copy).
   */
  fill(request: KernelRunRequest, sources: RunSources | undefined): boolean {
    if (!sources) return true;
    for (const [id, tagged] of Object.entries(sources)) {
      const module = Object.hasOwn(request.modules, id) ? (request.modules[id] as { source: string } | undefined) : undefined;
      if (!module || !Number.isSafeInteger(tagged) || tagged === 0) return false;
      const ref = Math.abs(tagged);
      const kept = this.#kept.get(ref);
      if (tagged < 0) {
        if (kept === undefined) return false;
        module.source = kept;
        this.#touch(ref, kept);
      } else if (kept === undefined) this.#keep(ref, module.source);
      else this.#touch(ref, kept);
    }
    return true;
  }

  #touch(ref: number, source: string): void {
    this.#kept.delete(ref);
    this.#kept.set(ref, source);
  }

  #keep(ref: number, source: string): void {
    this.#kept.set(ref, source);
    this.#chars += source.length;
    for (const [old, text] of this.#kept) {
      if (this.#chars <= this.#max || old === ref) break;
      this.#kept.delete(old);
      this.#chars -= text.length;
    }
  }
}
