// Test support: emits WebAssembly binaries from a small description, so every binary rule has a
// test binary built for exactly that rule (and discovery fixtures can be generated rather than
// committed as opaque blobs). It writes the binary format directly — no toolchain, no
// WebAssembly API — and lets a test ask for things a real toolchain would never emit (imports,
// shared or unbounded memories, i64 signatures, raw garbage sections) because that is what an
// attacker's pack ships. Pure: runs in Node and in a browser.

export type BuilderValType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128' | 'funcref' | 'externref';

export const VALTYPE_BYTE: Readonly<Record<BuilderValType, number>> = {
  i32: 0x7f,
  i64: 0x7e,
  f32: 0x7d,
  f64: 0x7c,
  v128: 0x7b,
  funcref: 0x70,
  externref: 0x6f,
};

export interface BuilderFuncType {
  readonly params: readonly BuilderValType[];
  readonly results: readonly BuilderValType[];
}

export interface BuilderLimits {
  readonly min: number;
  readonly max?: number;
  readonly shared?: boolean;
  /** Sets the memory64 flag (bit 2); the limits are then written as u64 LEBs (small values only). */
  readonly memory64?: boolean;
}

export type BuilderImport =
  | { readonly module: string; readonly name: string; readonly kind: 'func'; readonly type: number | BuilderFuncType }
  | { readonly module: string; readonly name: string; readonly kind: 'memory'; readonly limits: BuilderLimits }
  | { readonly module: string; readonly name: string; readonly kind: 'table'; readonly limits: BuilderLimits }
  | { readonly module: string; readonly name: string; readonly kind: 'global'; readonly type: BuilderValType; readonly mutable?: boolean };

export interface BuilderFunc {
  /** A type index into `types`, or a signature (deduplicated into the type section). */
  readonly type: number | BuilderFuncType;
  readonly locals?: readonly BuilderValType[];
  /** Instruction bytes, without the final `end` (the builder appends it). */
  readonly body: readonly number[];
}

export interface BuilderGlobal {
  readonly type: BuilderValType;
  readonly mutable?: boolean;
  /** Constant-expression bytes without the final `end`, e.g. `[op.i32_const, ...sleb(0)]`. */
  readonly init: readonly number[];
}

export interface BuilderExport {
  readonly name: string;
  readonly kind: 'func' | 'table' | 'memory' | 'global';
  readonly index: number;
}

export interface BuilderData {
  /** Active segment for memory 0 at a constant i32 offset. */
  readonly offset: number;
  readonly bytes: readonly number[];
}

export interface WasmModuleDescription {
  /** Explicit types first (indices 0..n-1); function signatures given inline are appended after. */
  readonly types?: readonly BuilderFuncType[];
  readonly imports?: readonly BuilderImport[];
  readonly funcs?: readonly BuilderFunc[];
  readonly tables?: readonly BuilderLimits[];
  readonly memories?: readonly BuilderLimits[];
  readonly globals?: readonly BuilderGlobal[];
  readonly exports?: readonly BuilderExport[];
  /** Function index of a start function. */
  readonly start?: number;
  readonly data?: readonly BuilderData[];
  readonly customSections?: readonly { readonly name: string; readonly bytes: readonly number[] }[];
  /** Raw sections appended verbatim as `{ id, content }` (the size is written for you). */
  readonly rawSections?: readonly { readonly id: number; readonly content: readonly number[] }[];
}

/** Opcodes the tests use; add more as needed. */
export const op = {
  unreachable: 0x00,
  nop: 0x01,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  br_if: 0x0d,
  return: 0x0f,
  call: 0x10,
  drop: 0x1a,
  local_get: 0x20,
  local_set: 0x21,
  local_tee: 0x22,
  global_get: 0x23,
  global_set: 0x24,
  i32_load: 0x28,
  i32_store: 0x36,
  i32_const: 0x41,
  i64_const: 0x42,
  f32_const: 0x43,
  f64_const: 0x44,
  i32_eqz: 0x45,
  i32_lt_s: 0x48,
  i32_add: 0x6a,
  i32_sub: 0x6b,
  i32_mul: 0x6c,
  i32_div_s: 0x6d,
  f32_add: 0x92,
  f32_mul: 0x94,
  f64_add: 0xa0,
  f64_mul: 0xa2,
  memory_grow: 0x40,
  memory_size: 0x3f,
  blocktype_empty: 0x40,
} as const;

/** Unsigned LEB128 (u32/u64 for the small values tests use). */
export function uleb(value: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`uleb: ${value} is not a non-negative safe integer`);
  const out: number[] = [];
  let v = value;
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 for values in the safe-integer range. */
export function sleb(value: number): number[] {
  if (!Number.isSafeInteger(value)) throw new RangeError(`sleb: ${value} is not a safe integer`);
  const out: number[] = [];
  let v = BigInt(value);
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const signBit = (byte & 0x40) !== 0;
    if ((v === 0n && !signBit) || (v === -1n && signBit)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

export function f32Bytes(value: number): number[] {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, value, true);
  return [...new Uint8Array(view.buffer)];
}

export function f64Bytes(value: number): number[] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value, true);
  return [...new Uint8Array(view.buffer)];
}

export function nameBytes(name: string): number[] {
  const utf8 = [...new TextEncoder().encode(name)];
  return [...uleb(utf8.length), ...utf8];
}

function vec(items: readonly (readonly number[])[]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function limitsBytes(limits: BuilderLimits): number[] {
  const flags = (limits.max !== undefined ? 1 : 0) | (limits.shared ? 2 : 0) | (limits.memory64 ? 4 : 0);
  return [flags, ...uleb(limits.min), ...(limits.max !== undefined ? uleb(limits.max) : [])];
}

function funcTypeBytes(type: BuilderFuncType): number[] {
  return [0x60, ...vec(type.params.map((t) => [VALTYPE_BYTE[t]])), ...vec(type.results.map((t) => [VALTYPE_BYTE[t]]))];
}

function section(id: number, content: readonly number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

const sameType = (a: BuilderFuncType, b: BuilderFuncType) =>
  a.params.length === b.params.length &&
  a.results.length === b.results.length &&
  a.params.every((t, i) => t === b.params[i]) &&
  a.results.every((t, i) => t === b.results[i]);

/** Emit the binary. Sections appear in the order the format requires; empty ones are left out. */
export function buildWasm(desc: WasmModuleDescription): Uint8Array<ArrayBuffer> {
  const types: BuilderFuncType[] = [...(desc.types ?? [])];
  const typeIndex = (type: number | BuilderFuncType): number => {
    if (typeof type === 'number') return type;
    const found = types.findIndex((t) => sameType(t, type));
    if (found >= 0) return found;
    types.push(type);
    return types.length - 1;
  };

  const importEntries = (desc.imports ?? []).map((imp) => {
    const head = [...nameBytes(imp.module), ...nameBytes(imp.name)];
    switch (imp.kind) {
      case 'func':
        return [...head, 0x00, ...uleb(typeIndex(imp.type))];
      case 'table':
        return [...head, 0x01, VALTYPE_BYTE.funcref, ...limitsBytes(imp.limits)];
      case 'memory':
        return [...head, 0x02, ...limitsBytes(imp.limits)];
      case 'global':
        return [...head, 0x03, VALTYPE_BYTE[imp.type], imp.mutable ? 1 : 0];
    }
  });
  const funcTypeIndices = (desc.funcs ?? []).map((f) => uleb(typeIndex(f.type)));
  const codeEntries = (desc.funcs ?? []).map((f) => {
    const locals = (f.locals ?? []).map((t) => [1, VALTYPE_BYTE[t]]);
    const body = [...vec(locals), ...f.body, op.end];
    return [...uleb(body.length), ...body];
  });

  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const add = (id: number, entries: readonly (readonly number[])[]) => {
    if (entries.length) out.push(...section(id, vec(entries)));
  };
  add(1, types.map(funcTypeBytes));
  add(2, importEntries);
  add(3, funcTypeIndices);
  add(
    4,
    (desc.tables ?? []).map((t) => [VALTYPE_BYTE.funcref, ...limitsBytes(t)]),
  );
  add(5, (desc.memories ?? []).map(limitsBytes));
  add(
    6,
    (desc.globals ?? []).map((g) => [VALTYPE_BYTE[g.type], g.mutable ? 1 : 0, ...g.init, op.end]),
  );
  const kindByte = { func: 0, table: 1, memory: 2, global: 3 } as const;
  add(
    7,
    (desc.exports ?? []).map((e) => [...nameBytes(e.name), kindByte[e.kind], ...uleb(e.index)]),
  );
  if (desc.start !== undefined) out.push(...section(8, uleb(desc.start)));
  add(10, codeEntries);
  add(
    11,
    (desc.data ?? []).map((d) => [0x00, op.i32_const, ...sleb(d.offset), op.end, ...uleb(d.bytes.length), ...d.bytes]),
  );
  for (const custom of desc.customSections ?? []) out.push(...section(0, [...nameBytes(custom.name), ...custom.bytes]));
  for (const raw of desc.rawSections ?? []) out.push(...section(raw.id, raw.content));
  return Uint8Array.from(out);
}

/** Shorthand: one exported function per entry, with a body (default: return a zero of the result type). */
export function buildExportsModule(
  fns: readonly {
    readonly name: string;
    readonly params: readonly BuilderValType[];
    readonly results: readonly BuilderValType[];
    readonly body?: readonly number[];
  }[],
  extra: Omit<WasmModuleDescription, 'funcs' | 'exports'> = {},
): Uint8Array<ArrayBuffer> {
  const zero = (t: BuilderValType | undefined): number[] => {
    switch (t) {
      case undefined:
        return [];
      case 'i32':
        return [op.i32_const, 0];
      case 'i64':
        return [op.i64_const, 0];
      case 'f32':
        return [op.f32_const, ...f32Bytes(0)];
      case 'f64':
        return [op.f64_const, ...f64Bytes(0)];
      case 'v128':
        return [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
      case 'funcref':
        return [0xd0, VALTYPE_BYTE.funcref];
      case 'externref':
        return [0xd0, VALTYPE_BYTE.externref];
    }
  };
  const funcs = fns.map((f) => ({ type: { params: f.params, results: f.results }, body: f.body ?? f.results.flatMap((t) => zero(t)) }));
  const firstFunc = (extra.imports ?? []).filter((i) => i.kind === 'func').length;
  return buildWasm({ ...extra, funcs, exports: fns.map((f, i) => ({ name: f.name, kind: 'func' as const, index: firstFunc + i })) });
}
