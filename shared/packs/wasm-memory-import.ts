// A module's own linear memory, turned into one the host passes in, so a WASM worker can give
// each call a memory it zeroed instead of a new one (issue 32).
//
// Instance per call stays: every call still gets a new instance, globals and tables included. What
// changes is where its memory comes from. A module that defines its memory gets a fresh mapping
// at every instantiation. On the 2-core VM we measure on, that mapping is most of a small call's
// cost: the mapping itself, the fault on the first page written, and the unmap's TLB-shootdown
// interrupts when the memory is collected. Instantiating sandbox-hash took 72–95 µs that way, and
// 10–16 µs with a kept memory zeroed before each call (`new Uint8Array(buffer).fill(0)`, about
// 1 µs per page here).
//
// The instance cannot tell the difference. A fresh memory of `initial` pages is all zeros. The
// host hands the call a memory of exactly those limits, zeroed in full, and instantiation then
// writes the data segments as it always does. A memory that grew during a call is never handed
// out again. The import object a pack's module sees stays empty: only the host's rewritten copy
// of the binary imports anything, and only this one memory (see
// shared/sandbox/wasm/instance-supply.mjs for the worker's side).
//
// The rewrite is done only on bytes `validateWasmBinary` accepted, and it declines (answers
// undefined) anything it does not expect, so the worker then instantiates the original module as
// before.

import { Reader, WasmReject, readLimits } from './wasm-reader.ts';

/** Where the rewritten binary imports its memory from; a validated pack binary imports nothing. */
export const HOST_MEMORY_IMPORT = { module: 'sandbox-packs', name: 'memory' } as const;

/**
 * Memories the host zeroes instead of mapping anew: up to this many initial pages. Zeroing costs
 * about 1 µs per page here, so at 16 pages (1 MB) it still costs less than a fresh mapping.
 * 16 pages is also the limit for a spare instance (`instantiatesQuietly`).
 */
export const HOST_MEMORY_MAX_PAGES = 16;

/** The limits the host's memory must have: exactly the module's own. */
export interface HostMemoryShape {
  readonly initial: number;
  readonly maximum: number;
}

export interface HostMemoryForm {
  /** The same module, with its one memory imported from `HOST_MEMORY_IMPORT` instead of defined. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly memory: HostMemoryShape;
}

const TYPE_SECTION = 1;
const IMPORT_SECTION = 2;
const MEMORY_SECTION = 5;
const CUSTOM_SECTION = 0;
const MEMORY_KIND = 0x02;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function nameBytes(name: string): number[] {
  const utf8 = new TextEncoder().encode(name);
  return [...uleb(utf8.length), ...utf8];
}

interface Section {
  readonly id: number;
  /** The whole section, header included. */
  readonly start: number;
  readonly end: number;
  readonly bodyStart: number;
}

/**
 * The host-memory form of a validated binary, or undefined when it does not qualify: no memory,
 * more than one, imports of its own, no maximum, shared or 64-bit, or more than
 * `HOST_MEMORY_MAX_PAGES` initial pages.
 */
export function hostMemoryForm(bytes: Uint8Array): HostMemoryForm | undefined {
  try {
    return rewrite(bytes);
  } catch (error) {
    if (error instanceof WasmReject) return undefined;
    throw error;
  }
}

function rewrite(bytes: Uint8Array): HostMemoryForm | undefined {
  const sections: Section[] = [];
  let pos = 8;
  while (pos < bytes.length) {
    const head = new Reader(bytes, pos, bytes.length, 'a section header');
    const id = head.byte();
    const size = head.uleb();
    const bodyStart = head.pos;
    if (size > bytes.length - bodyStart) return undefined;
    sections.push({ id, start: pos, end: bodyStart + size, bodyStart });
    pos = bodyStart + size;
  }
  if (sections.some((s) => s.id === IMPORT_SECTION)) return undefined;
  const memories = sections.filter((s) => s.id === MEMORY_SECTION);
  const memorySection = memories[0];
  if (memorySection === undefined || memories.length !== 1) return undefined;

  const r = new Reader(bytes, memorySection.bodyStart, memorySection.end, 'the memory section');
  if (r.count('memories') !== 1) return undefined;
  const limitsStart = r.pos;
  const limits = readLimits(r, 'memory 0');
  if (!r.done || limits.shared || limits.is64 || limits.max === undefined || limits.min > HOST_MEMORY_MAX_PAGES) return undefined;
  const limitBytes = bytes.subarray(limitsStart, r.pos);

  // One import: (import "sandbox-packs" "memory" (memory min max)), the memory's own limits.
  const entry = [...nameBytes(HOST_MEMORY_IMPORT.module), ...nameBytes(HOST_MEMORY_IMPORT.name), MEMORY_KIND, ...limitBytes];
  const body = [1, ...entry];
  const importSection = Uint8Array.from([IMPORT_SECTION, ...uleb(body.length), ...body]);

  // The import section goes right after the type section: before the first known section that is
  // neither custom nor the type section (every other one comes after imports in the binary order).
  const at = sections.find((s) => s.id !== CUSTOM_SECTION && s.id !== TYPE_SECTION) ?? memorySection;
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  for (const s of sections) {
    if (s === at) parts.push(importSection);
    if (s !== memorySection) parts.push(bytes.subarray(s.start, s.end));
  }
  const out: Uint8Array<ArrayBuffer> = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return { bytes: out, memory: { initial: limits.min, maximum: limits.max } };
}
