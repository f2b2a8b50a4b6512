// Snapshots of an engine's linear memory, the forensics that make restoring one safe: where the
// allocator keeps its heap end, where the context's Math.random state lives (reseeded before every
// run), and zeroing a retired memory for the next instance. The sandbox supply takes a snapshot of a
// sandbox before any run and writes it back after each (sandbox-supply.ts), so no run can read a
// byte another run left. Not to be confused with module-image.ts, which decides which module SET
// may be evaluated into a sandbox before its snapshot is taken; this file only copies bytes.

import { ENGINE_BASE_PAGES, instantiateQuickJsNg, PAGE } from './engine.ts';

const CHUNK = 4096;
const MASK64 = (1n << 64n) - 1n;

/**
 * A memory's non-zero chunks (everything else was zero) taken before any run, and what restoring
 * it needs. Restoring writes zeros and the chunks back, so the memory is again, byte for byte, that
 * of a sandbox no run has used, but for the Math.random state, which each run gets afresh.
 */
export interface MemorySnapshot {
  readonly memory: WebAssembly.Memory;
  /** The memory's size when taken: a memory that grew since is never restored. */
  readonly bytes: number;
  readonly chunks: readonly { readonly at: number; readonly bytes: Uint8Array }[];
  /** Where the context's Math.random state (8 bytes) lives. */
  readonly randomAt: number;
  /** Where the allocator's heap end lives (see `findHeapEnd`), or undefined: restoring zeroes all. */
  readonly heapEndAt: number | undefined;
  /** The heap end in the snapshot: every non-zero byte of it lies below. */
  readonly heapEnd: number;
  /** What keeping it costs: the engine memory and the chunks, in bytes. */
  readonly cost: number;
}

/** Where a context's Math.random state lives in its engine's memory (a byte offset), or undefined; `step` calls Math.random once. */
export type RandomStateFinder = (memory: WebAssembly.Memory, step: () => void, below?: number) => number | undefined;

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
 * one (an engine whose generator differs): no snapshot is taken then.
 */
export const findRandomState: RandomStateFinder = (memory, step, below) => {
  // The state is never zero, so it lies below the highest non-zero word, and below the heap's end
  // (`below`, when known: every byte the engine wrote lies under it): only that much is copied and
  // compared, a third of a fresh engine's 16 MB. Finding the highest non-zero word reads the
  // untouched top of the memory, a page fault per 4 KB (~18 ms here), so the heap end is used
  // when the caller has it.
  const words = below !== undefined && below > 0 && below <= memory.buffer.byteLength ? Math.ceil(below / 8) * 2 : wordsInUse(memory.buffer);
  const before = new Uint32Array(memory.buffer.slice(0, Math.min(words * 4, memory.buffer.byteLength)));
  step();
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
};

/**
 * How many 32-bit words from the start of `buffer` hold every non-zero byte: the index of the
 * highest non-zero word, plus one (0 for a memory of zeros), rounded up to an even count so a
 * 64-bit word is never cut. Scanned from the top a word at a time: the untouched top of a fresh
 * engine (two thirds of it) is skipped in a few milliseconds.
 */
function wordsInUse(buffer: ArrayBuffer): number {
  const words = new Uint32Array(buffer, 0, buffer.byteLength >>> 2);
  let i = words.length - 1;
  while (i >= 0 && words[i] === 0) i--;
  return Math.min(words.length, (i + 2) & ~1);
}

/**
 * The memory's non-zero chunks below `limit`, copied into one buffer. Reading a page the engine
 * never touched costs a page fault, so the scan of a 16 MB memory spent ~10 ms on its untouched
 * top alone; and slicing chunks out one by one (an ArrayBuffer each) cost as much again
 * (measured): a set's snapshot is scanned only up to its heap end, once the heap end is known good.
 */
function chunksOf(memory: WebAssembly.Memory, limit = memory.buffer.byteLength): { at: number; bytes: Uint8Array }[] {
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
    // The heap end is a static the engine has written (it holds an address of 64 KB or more), so
    // it lies below the highest non-zero word before the allocation: only that much is copied
    // and compared (the untouched top of the memory, two thirds of it, is not).
    const limit = wordsInUse(memory.buffer);
    const before = new Uint32Array(memory.buffer.slice(0, limit * 4));
    run('globalThis.probe = new ArrayBuffer(4 << 20); 1');
    // The highest byte written so far, the allocation included.
    const top = wordsInUse(memory.buffer);
    const topWords = new Uint8Array(memory.buffer, 0, top * 4);
    let highest = 0;
    for (let i = topWords.length - 1; i >= 0; i--) {
      if (topWords[i] !== 0) {
        highest = i;
        break;
      }
    }
    const grown = new Uint32Array(memory.buffer.slice(0, limit * 4));
    run('globalThis.probe = null; 1');
    const freed = new Uint32Array(memory.buffer, 0, before.length);
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
  /** Set once a whole-memory snapshot showed nothing above the heap end: later ones stop there. */
  heapEndChecked: boolean;
  readonly randomAt: Map<boolean, number>;
}
const foundByModule = new WeakMap<WebAssembly.Module, Found>();

function foundIn(compiled: WebAssembly.Module): Found {
  let found = foundByModule.get(compiled);
  if (!found) foundByModule.set(compiled, (found = { heapEndAt: undefined, heapEndChecked: false, randomAt: new Map() }));
  return found;
}

function locateRandom(
  known: Map<boolean, number>,
  withWasm: boolean,
  memory: WebAssembly.Memory,
  step: () => void,
  below: number | undefined,
): number | undefined {
  const at = known.get(withWasm);
  if (at !== undefined) {
    const view = new BigUint64Array(memory.buffer, at, 1);
    const old = view[0]!;
    step();
    if (old !== 0n && view[0] === xorshiftStep(old)) return at;
  }
  // Searched below the heap end first; where that finds nothing, the whole memory.
  const found = (below !== undefined ? findRandomState(memory, step, below) : undefined) ?? findRandomState(memory, step);
  if (found !== undefined) known.set(withWasm, found);
  return found;
}

/**
 * The snapshot of a sandbox's engine memory as it is now (no run has used the sandbox), or
 * undefined when its Math.random state cannot be found. `step` calls the sandbox's Math.random
 * once; `find` replaces the search (and what this thread remembers of earlier ones), for tests.
 */
export async function takeSnapshot(
  compiled: WebAssembly.Module,
  withWasm: boolean,
  memory: WebAssembly.Memory,
  step: () => void,
  find?: RandomStateFinder,
): Promise<MemorySnapshot | undefined> {
  const found = foundIn(compiled);
  found.heapEndAt ??= findHeapEnd(compiled).catch(() => undefined);
  const heapEndAt = await found.heapEndAt;
  // The search for the Math.random state stops at the heap end as it is before the step; the
  // snapshot takes the heap end after it (the step may allocate, and what it wrote is in the image).
  const searchBelow = heapEndAt === undefined ? undefined : new Uint32Array(memory.buffer, heapEndAt, 1)[0]!;
  const randomAt = find ? find(memory, step) : locateRandom(found.randomAt, withWasm, memory, step, searchBelow);
  if (randomAt === undefined) return undefined;
  const heapEnd = heapEndAt === undefined ? memory.buffer.byteLength : new Uint32Array(memory.buffer, heapEndAt, 1)[0]!;
  const trusted = found.heapEndChecked && heapEndAt !== undefined && heapEnd <= memory.buffer.byteLength;
  const chunks = chunksOf(memory, trusted ? Math.ceil(heapEnd / CHUNK) * CHUNK : undefined);
  // The heap end must lie above everything in the snapshot, or it is not what it was taken for.
  const usable = trusted || (heapEndAt !== undefined && heapEnd <= memory.buffer.byteLength && chunks.every((chunk) => chunk.at < heapEnd));
  if (usable) found.heapEndChecked = true;
  const bytes = memory.buffer.byteLength;
  return {
    memory,
    bytes,
    chunks,
    randomAt,
    heapEndAt: usable ? heapEndAt : undefined,
    heapEnd: usable ? heapEnd : bytes,
    cost: bytes + chunks.length * CHUNK,
  };
}

/**
 * Zeros over the memory, then the snapshot: the memory as it was before any run. False, and
 * nothing written, when the memory grew since the snapshot (it is then never restored).
 */
export function restoreSnapshot(snapshot: MemorySnapshot): boolean {
  if (snapshot.memory.buffer.byteLength !== snapshot.bytes) return false;
  const bytes = new Uint8Array(snapshot.memory.buffer);
  // Only what lies below the heap's end can have been written (data, stack, heap; the heap end
  // only rises), so zeroing stops there: about 6–7 MB of the 16 after a small run. An end that
  // is not plausible (below the snapshot's, past the memory) zeroes everything.
  let end = bytes.length;
  if (snapshot.heapEndAt !== undefined) {
    const now = new Uint32Array(snapshot.memory.buffer, snapshot.heapEndAt, 1)[0]!;
    if (now >= snapshot.heapEnd && now <= bytes.length) end = now;
  }
  // Each byte below the end is written once: the snapshot's chunks where it has them (in address
  // order), zeros between and after them (a module-set snapshot is a few MB: writing it over zeros
  // doubled the cost of every restore).
  let at = 0;
  for (const chunk of snapshot.chunks) {
    if (chunk.at > at) bytes.fill(0, at, Math.min(chunk.at, end));
    bytes.set(chunk.bytes, chunk.at);
    at = chunk.at + chunk.bytes.length;
  }
  if (end > at) bytes.fill(0, at, end);
  return true;
}

/** Seeds drawn from the platform's CSPRNG 64 at a time (one call instead of one per run). */
const seeds = new BigUint64Array(64);
let nextSeed = seeds.length;

/** A fresh seed for the context's Math.random (never zero: the generator would stay at zero). */
export function reseedRandom(snapshot: MemorySnapshot): void {
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
  new BigUint64Array(snapshot.memory.buffer, snapshot.randomAt, 1)[0] = seed;
}

/**
 * Makes a used engine's memory fit for a new instance: every byte zeroed, as a new memory's are
 * (about 0.4 ms for the 16 MB). Undefined for a memory that has grown past its initial size: a
 * new instance must not start with more room than a new memory gives, so that one is dropped.
 * Why recycle at all: a new 16 MB memory per run is external memory V8 answers with about one
 * garbage collection per instance; instantiating on a zeroed memory measured 0.3 ms against
 * 1.5–4 ms on a new one (scripts/bench/kernel.ts, engine rows).
 */
export function zeroedForReuse(memory: WebAssembly.Memory): WebAssembly.Memory | undefined {
  if (memory.buffer.byteLength !== ENGINE_BASE_PAGES * PAGE) return undefined;
  new Uint8Array(memory.buffer).fill(0);
  return memory;
}
