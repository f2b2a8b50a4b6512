// Validation of a pack's WASM binary before anything compiles it. The host cannot cap a
// module-defined memory at instantiation and cannot hide an import from an engine that links
// it, so the v1 rules (no imports, bounded unshared memory, scalar export signatures) are
// checked here, in the bytes, by a small section-level parser written against the binary format
// spec (parseModule says what it parses). Pure TypeScript with no WebAssembly API: it runs
// identically in Node, in the renderer and in a browser, and a hostile binary never reaches an
// engine's compiler unless it passed. Byte-level reads live in wasm-reader.ts.

import type { WasmExportSignature } from '../protocol/catalog.ts';
import { LIMITS } from '../protocol/limits.ts';
import { isByteType, WASM_TYPES, type WasmExportDeclaration, type WasmScalarType, type WasmValueType } from '../protocol/manifest.ts';
import { fail, ok, type Result } from '../protocol/result.ts';
import { Reader, WasmReject, invalid, readLimits, readValType, skipConstExpr } from './wasm-reader.ts';

export interface WasmBinaryEntry {
  readonly memoryPagesMax: number;
  readonly exports: readonly WasmExportDeclaration[];
}

export interface ValidatedWasmBinary {
  /** The declared exports' signatures, in manifest declaration order. */
  readonly exports: WasmExportSignature[];
  /** What instantiating the module does besides allocating (see `instantiatesQuietly`). */
  readonly instantiation: WasmInstantiation;
}

/** What happens when the module is instantiated, as far as the binary says. */
export interface WasmInstantiation {
  /** A start function runs (guest code, at instantiation). */
  readonly start: boolean;
  /** Linear memory pages allocated up front, over all memories. */
  readonly memoryPages: number;
  /** Table elements allocated up front, over all tables. */
  readonly tableElements: number;
}

/**
 * True when a fresh instance can be made before its call without anyone being able to tell:
 * no start function (so no code runs) and a small up-front allocation (at most 16 pages of memory
 * and 10,000 table elements). Such an instance, never used before its one call, is exactly the one
 * the call would have made itself; a WASM worker may keep one ready to take instantiation off a
 * call's path.
 */
export function instantiatesQuietly(i: WasmInstantiation): boolean {
  return !i.start && i.memoryPages <= 16 && i.tableElements <= 10_000;
}

const SCALARS: ReadonlySet<string> = new Set<WasmScalarType>(['i32', 'f32', 'f64']);

/**
 * Names a guest may not import by: reserved words (ES2023, strict mode, module code), the two
 * strict-mode-restricted bindings, and `then`/`__proto__`/`constructor`, which would turn a module
 * namespace or a plain-object export map into something that behaves unlike a function table.
 */
const RESERVED = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum',
  'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return',
  'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield', 'let', 'static',
  'implements', 'interface', 'package', 'private', 'protected', 'public', 'arguments', 'eval', 'undefined', 'NaN',
  'Infinity', 'then', '__proto__', 'constructor',
]);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A valid, non-reserved (ASCII) JavaScript identifier: what a facade may export. */
export function isGuestExportName(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

interface FuncType {
  readonly params: readonly string[];
  readonly results: readonly string[];
}

interface ExportEntry {
  readonly kind: number;
  readonly index: number;
}

interface ParsedModule {
  readonly types: readonly FuncType[];
  readonly funcTypes: readonly number[];
  readonly exports: ReadonlyMap<string, ExportEntry>;
  readonly instantiation: WasmInstantiation;
}

/** Canonical order of the known non-custom sections (tag sits between memory and global). */
const SECTION_ORDER: ReadonlyMap<number, number> = new Map([
  [1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [13, 6], [6, 7], [7, 8], [8, 9], [9, 10], [12, 11], [10, 12], [11, 13],
]);
const SECTION_NAMES: Readonly<Record<number, string>> = {
  0: 'custom', 1: 'type', 2: 'import', 3: 'function', 4: 'table', 5: 'memory', 6: 'global', 7: 'export', 8: 'start',
  9: 'element', 10: 'code', 11: 'data', 12: 'data count', 13: 'tag',
};
const IMPORT_KINDS = ['function', 'table', 'memory', 'global', 'tag'];
const EXPORT_KINDS = ['function', 'table', 'memory', 'global', 'tag'];

/**
 * What is parsed: the header; the type, import, function, table, memory, global, export and start
 * sections fully; the code section's count; every other known section is skipped by its size.
 * Sections must appear once each, in the order the format requires. Anything malformed —
 * truncated, an over-long LEB128, trailing bytes inside a section, an index out of range — is
 * `wasm-invalid`. Well-formed features v1 does not allow (GC/rec types, memory64, typed
 * function-reference tables) are `wasm-unsupported`.
 *
 * Start functions are allowed. With an empty import object a start function can only compute,
 * and it runs at instantiation, which the pool does inside each call's worker under the per-call
 * timeout (instance per call) — so it is bounded exactly like the export it precedes. Rejecting
 * it would refuse ordinary toolchain output (static initializers) for no safety gain.
 */
function parseModule(bytes: Uint8Array, pagesAllowed: number, manifestPages: number): ParsedModule {
  const header = new Reader(bytes, 0, bytes.length, 'the header');
  const magic = [0x00, 0x61, 0x73, 0x6d];
  for (const m of magic) if (header.byte() !== m) invalid('the file does not start with the WebAssembly magic bytes');
  const version = [0x01, 0x00, 0x00, 0x00];
  for (const v of version) if (header.byte() !== v) invalid('the file is not WebAssembly binary format version 1');

  const types: FuncType[] = [];
  const funcTypes: number[] = [];
  const exports = new Map<string, ExportEntry>();
  let tableCount = 0;
  let memoryCount = 0;
  let hasStart = false;
  let memoryPages = 0;
  let tableElements = 0;
  let globalCount = 0;
  let tagCount = 0;
  let codeCount: number | undefined;
  let lastOrder = 0;

  let pos = header.pos;
  while (pos < bytes.length) {
    const head = new Reader(bytes, pos, bytes.length, 'a section header');
    const id = head.byte();
    const size = head.uleb();
    const start = head.pos;
    const end = start + size;
    if (end > bytes.length) invalid(`the ${SECTION_NAMES[id] ?? `id ${id}`} section is truncated`);
    pos = end;
    if (id !== 0) {
      const order = SECTION_ORDER.get(id);
      if (order === undefined) invalid(`the file has an unknown section id ${id}`);
      if ((order as number) <= lastOrder) invalid(`the ${SECTION_NAMES[id]} section is duplicated or out of order`);
      lastOrder = order as number;
    }
    const name = SECTION_NAMES[id] as string;
    const r = new Reader(bytes, start, end, `the ${name} section`);

    switch (id) {
      case 0:
        r.name();
        r.pos = end; // custom payloads are opaque
        break;
      case 1: {
        const n = r.count('types');
        for (let i = 0; i < n; i++) {
          const form = r.byte();
          if (form !== 0x60) {
            throw new WasmReject('wasm-unsupported', `type ${i} is not a function type (form 0x${form.toString(16)}); v1 supports function types only`);
          }
          const params: string[] = [];
          const np = r.count('parameters');
          for (let j = 0; j < np; j++) params.push(readValType(r, `type ${i}`));
          const results: string[] = [];
          const nr = r.count('results');
          for (let j = 0; j < nr; j++) results.push(readValType(r, `type ${i}`));
          types.push({ params, results });
        }
        break;
      }
      case 2: {
        const n = r.count('imports');
        if (n > 0) {
          const module = r.name();
          const field = r.name();
          const kind = IMPORT_KINDS[r.byte()] ?? 'unknown kind';
          const more = n > 1 ? ` and ${n - 1} more` : '';
          throw new WasmReject('wasm-imports', `the module imports ${kind} "${module}"."${field}"${more}; v1 WASM modules may import nothing`);
        }
        break;
      }
      case 3: {
        const n = r.count('functions');
        for (let i = 0; i < n; i++) {
          const t = r.uleb();
          if (t >= types.length) invalid(`function ${i} refers to type ${t}, which does not exist`);
          funcTypes.push(t);
        }
        break;
      }
      case 4: {
        const n = r.count('tables');
        for (let i = 0; i < n; i++) {
          const first = r.byte();
          if (first === 0x40) throw new WasmReject('wasm-unsupported', `table ${i} has an initializer (typed function references), which v1 does not support`);
          r.pos--;
          readValType(r, `table ${i}`);
          const limits = readLimits(r, `table ${i}`);
          if (limits.shared || limits.is64) throw new WasmReject('wasm-unsupported', `table ${i} uses shared or 64-bit limits, which v1 does not support`);
          tableElements += limits.min;
        }
        tableCount += n;
        break;
      }
      case 5: {
        const n = r.count('memories');
        for (let i = 0; i < n; i++) {
          const limits = readLimits(r, `memory ${i}`);
          memoryPages += limits.min;
          if (limits.shared) throw new WasmReject('wasm-memory-shared', `memory ${i} is shared; v1 does not allow shared memory`);
          if (limits.is64) throw new WasmReject('wasm-unsupported', `memory ${i} uses 64-bit addressing (memory64), which v1 does not allow`);
          if (limits.max === undefined) {
            throw new WasmReject('wasm-memory-unbounded', `memory ${i} declares no maximum; every memory must declare one (at most ${pagesAllowed} pages)`);
          }
          if (limits.max > pagesAllowed) {
            throw new WasmReject(
              'wasm-memory-too-large',
              `memory ${i} declares a maximum of ${limits.max} pages; the manifest's memoryPagesMax is ${manifestPages} and the host ceiling is ${LIMITS.wasmMemoryPagesCeiling}`,
            );
          }
        }
        memoryCount += n;
        break;
      }
      case 13: {
        const n = r.count('tags');
        for (let i = 0; i < n; i++) {
          if (r.byte() !== 0x00) invalid(`tag ${i} has an unknown attribute`);
          const t = r.uleb();
          if (t >= types.length) invalid(`tag ${i} refers to type ${t}, which does not exist`);
        }
        tagCount += n;
        break;
      }
      case 6: {
        const n = r.count('globals');
        for (let i = 0; i < n; i++) {
          readValType(r, `global ${i}`);
          const mutability = r.byte();
          if (mutability > 1) invalid(`global ${i} has an unknown mutability flag`);
          skipConstExpr(r, `global ${i}`);
        }
        globalCount += n;
        break;
      }
      case 7: {
        const n = r.count('exports');
        const bounds = [funcTypes.length, tableCount, memoryCount, globalCount, tagCount];
        for (let i = 0; i < n; i++) {
          const exportName = r.name();
          const kind = r.byte();
          const index = r.uleb();
          const bound = bounds[kind];
          if (bound === undefined) invalid(`export "${exportName}" has unknown kind ${kind}`);
          if (index >= (bound as number)) invalid(`export "${exportName}" refers to ${EXPORT_KINDS[kind]} ${index}, which does not exist`);
          if (exports.has(exportName)) invalid(`export "${exportName}" appears twice`);
          exports.set(exportName, { kind, index });
        }
        break;
      }
      case 8: {
        const f = r.uleb();
        if (f >= funcTypes.length) invalid(`the start function ${f} does not exist`);
        const t = types[funcTypes[f] as number] as FuncType;
        if (t.params.length || t.results.length) invalid('the start function must take and return nothing');
        hasStart = true;
        break;
      }
      case 10: {
        codeCount = r.count('function bodies');
        r.pos = end; // bodies are the engine's to validate; they cannot change the rules above
        break;
      }
      default:
        r.pos = end;
    }
    if (r.pos !== end) invalid(`the ${name} section has ${end - r.pos} unexpected trailing bytes`);
  }
  if ((codeCount ?? 0) !== funcTypes.length) {
    invalid(`the module declares ${funcTypes.length} functions but has ${codeCount ?? 0} function bodies`);
  }
  return { types, funcTypes, exports, instantiation: { start: hasStart, memoryPages, tableElements } };
}

function describeSignatureProblem(exp: string, type: FuncType): string | undefined {
  const badParam = type.params.find((t) => !SCALARS.has(t));
  if (badParam) return `export \`${exp}\` takes ${badParam}`;
  const badResult = type.results.find((t) => !SCALARS.has(t));
  if (badResult) return `export \`${exp}\` returns ${badResult}`;
  if (type.params.length > LIMITS.wasmMaxParams) return `export \`${exp}\` takes ${type.params.length} parameters (at most ${LIMITS.wasmMaxParams})`;
  if (type.results.length > LIMITS.wasmMaxResults) return `export \`${exp}\` returns ${type.results.length} values (at most ${LIMITS.wasmMaxResults})`;
  return undefined;
}

/** One declared export: names, and for the typed form its declared types. */
interface DeclaredExport {
  readonly wasm: string;
  readonly as: string;
  /** The typed form's types, checked: undefined for a name or `{ wasm, as }` (typed by the binary). */
  readonly typed?: { readonly params: readonly WasmValueType[]; readonly results: readonly WasmValueType[] };
}

const TYPES: ReadonlySet<string> = new Set<string>(WASM_TYPES);
/** The canonical ABI's flattening: a bytes/string parameter is a (ptr, len) pair of i32s. */
const flatParams = (params: readonly WasmValueType[]): string[] => params.flatMap((t) => (isByteType(t) ? ['i32', 'i32'] : [t]));
/** A bytes/string result comes back through a return area: the core function returns its i32 pointer. */
const flatResults = (results: readonly WasmValueType[]): string[] => results.map((t) => (isByteType(t) ? 'i32' : t));
const showCore = (t: FuncType): string => `(${t.params.join(', ')}) → ${t.results[0] ?? 'nothing'}`;
const showDeclared = (params: readonly string[], results: readonly string[]): string => `(${params.join(', ')}) → ${results[0] ?? 'nothing'}`;

/** The typed form's types, or the sentence that says what is wrong with them. */
function checkDeclaredTypes(as: string, params: readonly string[], result: string | undefined): Result<DeclaredExport['typed'] & object> {
  const named = `export \`${as}\``;
  const choices = WASM_TYPES.join(', ');
  for (const [i, t] of params.entries()) {
    if (!TYPES.has(t)) return fail('wasm-export-signature', `${named} declares parameter ${i + 1} as ${JSON.stringify(t)}, which is not a type (${choices})`);
  }
  if (result !== undefined && !TYPES.has(result)) {
    return fail('wasm-export-signature', `${named} declares its result as ${JSON.stringify(result)}, which is not a type (${choices}; leave "result" out for none)`);
  }
  const typed = { params: params as WasmValueType[], results: (result === undefined ? [] : [result]) as WasmValueType[] };
  const words = flatParams(typed.params).length;
  if (words > LIMITS.wasmMaxParams) {
    return fail(
      'wasm-export-signature',
      `${named} declares ${words} parameter words (a bytes or string parameter counts as two: pointer and length); at most ${LIMITS.wasmMaxParams}`,
    );
  }
  return ok(typed);
}

/** The manifest's export list as declared exports, with the guest names and declared types checked. */
function normalizeDeclarations(declared: readonly WasmExportDeclaration[]): Result<DeclaredExport[]> {
  const out: DeclaredExport[] = [];
  const seen = new Set<string>();
  for (const decl of declared) {
    const pair = typeof decl === 'string' ? { wasm: decl, as: decl } : { wasm: decl.wasm, as: decl.as };
    if (!isGuestExportName(pair.as)) {
      const hint = typeof decl === 'string' ? `; map it with { "wasm": ${JSON.stringify(decl)}, "as": "someName" }` : '';
      return fail('wasm-export-name-invalid', `export name ${JSON.stringify(pair.as)} is not a valid, non-reserved JavaScript identifier${hint}`);
    }
    if (seen.has(pair.as)) return fail('wasm-export-name-invalid', `the manifest declares the export name \`${pair.as}\` twice`);
    seen.add(pair.as);
    if (typeof decl === 'string' || (decl.params === undefined && decl.result === undefined)) {
      out.push(pair);
      continue;
    }
    if (decl.params === undefined) {
      return fail('wasm-export-signature', `export \`${pair.as}\` declares a result but no "params"; declare both (use "params": [] for none)`);
    }
    const typed = checkDeclaredTypes(pair.as, decl.params, decl.result);
    if (!typed.ok) return typed;
    out.push({ ...pair, typed: typed.value });
  }
  return ok(out);
}

const REALLOC: FuncType = { params: ['i32', 'i32', 'i32', 'i32'], results: ['i32'] };
const sameType = (a: FuncType, b: FuncType): boolean =>
  a.params.length === b.params.length && a.results.length === b.results.length && a.params.every((t, i) => t === b.params[i]) && a.results.every((t, i) => t === b.results[i]);

/**
 * Validate `bytes` against the v1 WASM rules and the manifest entry. Never compiles. Returns the
 * declared exports' signatures in declaration order, or the first rule the binary breaks.
 */
export function validateWasmBinary(bytes: Uint8Array, entry: WasmBinaryEntry): Result<ValidatedWasmBinary> {
  if (bytes.length > LIMITS.wasmBytes) return fail('file-too-large', `the WASM binary is ${bytes.length} bytes; the limit is ${LIMITS.wasmBytes}`);
  const names = normalizeDeclarations(entry.exports);
  if (!names.ok) return names;
  const pagesAllowed = Math.min(entry.memoryPagesMax, LIMITS.wasmMemoryPagesCeiling);

  let parsed: ParsedModule;
  try {
    parsed = parseModule(bytes, pagesAllowed, entry.memoryPagesMax);
  } catch (error) {
    if (error instanceof WasmReject) return fail(error.code, error.message);
    throw error;
  }
  const typeOf = (index: number): FuncType => parsed.types[parsed.funcTypes[index] as number] as FuncType;

  const signatures: WasmExportSignature[] = [];
  let byteUser: string | undefined;
  for (const pair of names.value) {
    const found = parsed.exports.get(pair.wasm);
    if (!found) return fail('wasm-export-missing', `the binary has no export named \`${pair.wasm}\``);
    if (found.kind !== 0) return fail('wasm-export-not-function', `export \`${pair.wasm}\` is a ${EXPORT_KINDS[found.kind]}, not a function`);
    const type = typeOf(found.index);
    if (!pair.typed) {
      const problem = describeSignatureProblem(pair.wasm, type);
      if (problem) return fail('wasm-export-signature', problem);
      signatures.push({ wasm: pair.wasm, as: pair.as, params: type.params as WasmScalarType[], results: type.results as WasmScalarType[] });
      continue;
    }
    const { params, results } = pair.typed;
    const core: FuncType = { params: flatParams(params), results: flatResults(results) };
    const usesBytes = params.some(isByteType) || results.some(isByteType);
    if (!sameType(core, type)) {
      const lowered = usesBytes ? `, which the canonical ABI lowers to ${showCore(core)},` : '';
      return fail(
        'wasm-export-signature',
        `export \`${pair.as}\` is declared ${showDeclared(params, results)}${lowered} but the binary's \`${pair.wasm}\` is ${showCore(type)}`,
      );
    }
    if (usesBytes) byteUser ??= pair.as;
    const postName = `cabi_post_${pair.wasm}`;
    const post = parsed.exports.get(postName);
    if (post) {
      const want: FuncType = { params: core.results, results: [] };
      if (post.kind !== 0 || !sameType(typeOf(post.index), want)) {
        return fail('wasm-export-signature', `\`${postName}\` must be a function ${showCore(want)} (it is called with \`${pair.wasm}\`'s result after the host read it)`);
      }
    }
    signatures.push({ wasm: pair.wasm, as: pair.as, params, results, ...(post ? { post: postName } : {}) });
  }
  if (byteUser !== undefined) {
    const why = `which \`${byteUser}\` needs to take or return bytes or strings (the canonical ABI)`;
    const memory = parsed.exports.get('memory');
    if (!memory) return fail('wasm-export-missing', `the binary exports no \`memory\`, ${why}`);
    if (memory.kind !== 2) return fail('wasm-export-missing', `the binary's \`memory\` export is a ${EXPORT_KINDS[memory.kind]}, not a memory, ${why}`);
    const realloc = parsed.exports.get('cabi_realloc');
    if (!realloc) return fail('wasm-export-missing', `the binary has no export named \`cabi_realloc\`, ${why}: cabi_realloc(old_ptr, old_size, align, new_size) -> ptr`);
    if (realloc.kind !== 0 || !sameType(typeOf(realloc.index), REALLOC)) {
      return fail('wasm-export-signature', `\`cabi_realloc\` must be a function ${showCore(REALLOC)} (old_ptr, old_size, align, new_size → ptr)`);
    }
  }
  return ok({ exports: signatures, instantiation: parsed.instantiation });
}
