// The module level of a pack: analyze every source (authored JS, internal helpers, compiled npm
// bundles, WASM binaries), link their imports into one intra-pack graph, refuse internal cycles,
// skip every module whose own source or any dependency failed, and give each ready module its
// opaque id, executable form and module-graph digest. Pure: bytes in, records out.

import type { ErrorCode } from '../protocol/codes.ts';
import type { ExecutableModule, ExecutableWasm, ModuleKind, PackWarning, WasmExportTypes } from '../protocol/catalog.ts';
import type { DeliveredGraphSource } from '../protocol/delivery.ts';
import { LIMITS, formatBytes } from '../protocol/limits.ts';
import type { SandboxModuleEntry } from '../protocol/manifest.ts';
import { fail, ok, type Result } from '../protocol/result.ts';
import { WASM_BRIDGE_MODULE_ID, WASM_BRIDGE_SPECIFIER } from '../protocol/wasm-bridge.ts';
import { WASM_FACADE_GENERATOR_VERSION, generateWasmFacade, wasmBridgeModuleSource } from './wasm-facade.ts';
import { moduleGraphDigest, type GraphSource, type Sha256Hex } from './digest.ts';
import { exportsOverLimit } from './answer-bounds.ts';
import { findCycle } from './internal-list.ts';
import { printable } from './pack-path.ts';
import { analyzeJs, JS_ANALYZER_ID, type ImportTarget, type JsAnalysis, type JsAnalysisCode } from './js-analysis.ts';
import { validateWasmBinary } from './wasm-binary.ts';

export interface ModuleFailure {
  readonly code: ErrorCode;
  readonly message: string;
}

/** One source file (or npm entry) of a pack, as pack-loader.ts read it. */
export type PackFileSource =
  | { readonly role: 'entry'; readonly specifier: string; readonly entry: SandboxModuleEntry; readonly path?: string; readonly bytes?: Uint8Array; readonly failure?: ModuleFailure }
  | { readonly role: 'internal'; readonly path: string; readonly bytes?: Uint8Array; readonly failure?: ModuleFailure };

export interface NpmCompileOutput {
  readonly source: string;
  readonly compilerId: string;
  readonly inputsDigest: string;
  readonly warnings: readonly PackWarning[];
  /** The compiler's own static verdict on `source`, reused only if it still matches (see StaticVerdict). */
  readonly analysis?: StaticVerdict;
}

/**
 * What analyzeJs concluded about a source that passed with no import request at all, as an npm
 * bundle does. Such a verdict is a pure function of the bytes: with no request to classify, the
 * context (pack, specifiers, file) only names things in failure messages. So the npm compiler,
 * which analyzes every bundle it admits, records it next to the bundle, and discovery reuses it
 * instead of parsing the bundle again — but only for the exact bytes it receives (the sha256 is
 * recomputed here, so a bundle changed after it was judged is parsed again) and only under the
 * same analyzer id (a changed analyzer never reuses an old verdict).
 */
export interface StaticVerdict {
  readonly analyzer: string;
  readonly sha256: string;
  readonly exportNames: readonly string[];
}

/** The reusable verdict of a passed analysis of `source`; undefined when it depended on the context (it had imports). */
export function staticVerdict(source: string, analysis: JsAnalysis, sha256: Sha256Hex): StaticVerdict | undefined {
  if (analysis.imports.size > 0 || analysis.exportNames === undefined) return undefined;
  return { analyzer: JS_ANALYZER_ID, sha256: sha256(new TextEncoder().encode(source)), exportNames: [...analysis.exportNames] };
}
export type NpmCompile = (request: {
  readonly packName: string;
  readonly packVersion: string;
  readonly npmName: string;
  readonly specifier: string;
}) => Promise<Result<NpmCompileOutput, ErrorCode>>;

export interface LoadedEntry {
  readonly specifier: string;
  readonly kind: ModuleKind;
  readonly status: 'ready' | 'skipped';
  readonly failure?: ModuleFailure;
  readonly moduleId?: string;
  readonly digest?: string;
  /** Exported names: WASM `as` names, or a JS module's statically known exports. */
  readonly exports?: readonly string[];
  /** Exports the manifest declares (WASM only): the only names the disclosure line may show. */
  readonly declaredExports?: readonly string[];
  /** A ready WASM entry's exports with the scalar types its validated binary gives them. */
  readonly signatures?: readonly WasmExportTypes[];
  readonly description?: string;
}

export interface LoadedPackGraph {
  /** Public entries in manifest order. */
  readonly entries: readonly LoadedEntry[];
  /** Every ready module of the pack (entries, internal helpers, facades) by module id. */
  readonly modules: ReadonlyMap<string, ExecutableModule>;
  readonly warnings: readonly PackWarning[];
  /** JS sources parsed, and npm bundles whose compiler verdict was reused instead: how tests see the re-check skipped. */
  readonly analysis: { readonly parsed: number; readonly reused: number };
}

interface GraphNode {
  readonly key: string;
  /** Normalized id used in digests: `<pack>@<version>/entry:<specifier>` or `/file:<path>`. */
  readonly graphId: string;
  readonly moduleId: string;
  readonly kind: ModuleKind;
  readonly displayName: string;
  readonly specifier?: string;
  source?: string;
  imports: Map<string, string>;
  /** Sources this node contributes to a digest besides its own text (WASM bytes, the bridge). */
  extraSources: GraphSource[];
  ownSource?: GraphSource;
  wasm?: ExecutableWasm;
  failure?: ModuleFailure;
  exports?: readonly string[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export const BRIDGE_GRAPH_SOURCE: GraphSource = {
  id: WASM_BRIDGE_MODULE_ID,
  kind: 'wasm-bridge',
  content: wasmBridgeModuleSource(),
  producer: { generator: WASM_FACADE_GENERATOR_VERSION },
};

/** A graph source as delivery describes it: its content is the module's body, its WASM part, or the bridge text. */
function deliveredSource(source: GraphSource): DeliveredGraphSource {
  const content = source.kind === 'wasm-binary' ? 'wasm' : source.kind === 'wasm-bridge' ? 'bridge' : 'source';
  return { id: source.id, kind: source.kind, ...(source.producer ? { producer: { ...source.producer } } : {}), content };
}

/** Two modules of one pack derived the same id: the injected hash is broken. */
export class ModuleIdCollisionError extends Error {
  override readonly name = 'ModuleIdCollisionError';
}

/** Opaque module id: never a path, stable for the same pack, version and canonical id. */
export function deriveModuleId(sha256: Sha256Hex, packName: string, packVersion: string, canonicalId: string): string {
  return `m_${sha256(new TextEncoder().encode(`${packName}\u0000${packVersion}\u0000${canonicalId}`)).slice(0, 24)}`;
}

export async function buildPackGraph(
  input: { readonly packName: string; readonly packVersion: string; readonly files: readonly PackFileSource[]; readonly internalPaths: readonly string[] },
  powers: { readonly sha256: Sha256Hex; readonly compileNpm?: NpmCompile },
): Promise<Result<LoadedPackGraph, ErrorCode>> {
  const { packName, packVersion } = input;
  const prefix = `${packName}@${packVersion}/`;
  const nodes = new Map<string, GraphNode>();
  const warnings: PackWarning[] = [];
  const analysisCounts = { parsed: 0, reused: 0 };
  const publicSpecifiers = new Set<string>();
  const internalSet = new Set(input.internalPaths);
  for (const file of input.files) if (file.role === 'entry' && file.failure?.code !== 'module-name-invalid') publicSpecifiers.add(file.specifier);
  // Invalid names can print alike, so only valid specifiers and paths key the graph directly.
  const keys = input.files.map((file, index) =>
    file.role === 'internal' ? `file:${file.path}` : file.failure?.code === 'module-name-invalid' ? `invalid:${index}` : `entry:${file.specifier}`,
  );

  const keyOf = (target: ImportTarget): string => (target.kind === 'public' ? `entry:${target.specifier}` : `file:${target.path}`);

  for (const [index, file] of input.files.entries()) {
    const key = keys[index] ?? `invalid:${index}`;
    const graphId = prefix + key;
    const kind: ModuleKind = file.role === 'entry' && file.entry.kind === 'wasm' ? 'wasm' : 'js';
    const node: GraphNode = {
      key,
      graphId,
      moduleId: deriveModuleId(powers.sha256, packName, packVersion, key),
      kind,
      displayName: file.role === 'entry' ? file.specifier : `${packName} internal ${file.path}`,
      ...(file.role === 'entry' ? { specifier: file.specifier } : {}),
      imports: new Map(),
      extraSources: [],
    };
    nodes.set(key, node);
    if (file.failure) {
      node.failure = file.failure;
      continue;
    }
    if (file.role === 'entry' && file.entry.kind === 'wasm') {
      const bytes = file.bytes ?? new Uint8Array();
      const validated = validateWasmBinary(bytes, { memoryPagesMax: file.entry.memoryPagesMax, exports: file.entry.exports });
      if (!validated.ok) {
        node.failure = { code: validated.code, message: `${file.path ?? file.specifier}: ${printable(validated.message, 500)}` };
        continue;
      }
      const exports = validated.value.exports;
      node.source = generateWasmFacade({ moduleId: node.moduleId, exports });
      node.imports.set(WASM_BRIDGE_SPECIFIER, WASM_BRIDGE_MODULE_ID);
      node.exports = exports.map((e) => e.as);
      node.wasm = { bytes, exports, memoryPagesMax: file.entry.memoryPagesMax, budgets: file.entry.budgets ?? {} };
      node.ownSource = { id: graphId, kind: 'wasm-facade', content: node.source, producer: { generator: WASM_FACADE_GENERATOR_VERSION } };
      node.extraSources.push({ id: `${prefix}wasm:${file.specifier}`, kind: 'wasm-binary', content: bytes }, BRIDGE_GRAPH_SOURCE);
      continue;
    }
    let source: string;
    let producer: Record<string, string> | undefined;
    let verdict: StaticVerdict | undefined;
    if (file.role === 'entry' && file.entry.kind === 'js' && file.entry.npm !== undefined) {
      if (!powers.compileNpm) {
        node.failure = { code: 'npm-bundle-failed', message: `${file.specifier}: npm module "${file.entry.npm}" needs the npm compiler, which is not available here.` };
        continue;
      }
      const compiled = await powers.compileNpm({ packName, packVersion, npmName: file.entry.npm, specifier: file.specifier });
      if (!compiled.ok) {
        node.failure = { code: compiled.code, message: printable(compiled.message, 1000) };
        continue;
      }
      warnings.push(...compiled.value.warnings);
      const bundleBytes = new TextEncoder().encode(compiled.value.source);
      if (bundleBytes.byteLength > LIMITS.bundledJsBytes) {
        node.failure = { code: 'npm-too-large', message: `${file.specifier}: the bundle of "${file.entry.npm}" is over ${formatBytes(LIMITS.bundledJsBytes)}.` };
        continue;
      }
      source = compiled.value.source;
      producer = { compiler: compiled.value.compilerId, inputs: compiled.value.inputsDigest };
      const claimed = compiled.value.analysis;
      if (claimed?.analyzer === JS_ANALYZER_ID && claimed.sha256 === powers.sha256(bundleBytes)) verdict = claimed;
    } else {
      try {
        source = decoder.decode(file.bytes ?? new Uint8Array());
      } catch {
        node.failure = { code: 'js-syntax-error', message: `${file.path ?? node.displayName}: the file is not valid UTF-8 text.` };
        continue;
      }
    }
    const filePath = file.role === 'internal' || (file.entry.kind === 'js' && file.entry.npm === undefined) ? file.path : undefined;
    const analysis: Result<JsAnalysis, JsAnalysisCode> = verdict
      ? ok({ imports: new Map(), exportNames: verdict.exportNames })
      : analyzeJs(source, {
          packName,
          publicSpecifiers,
          internalPaths: internalSet,
          ...(filePath !== undefined ? { filePath } : {}),
          displayName: filePath ?? node.displayName,
          ...(producer ? { npmBundle: true } : {}),
        });
    analysisCounts[verdict ? 'reused' : 'parsed']++;
    if (!analysis.ok) {
      node.failure = { code: analysis.code, message: analysis.message };
      continue;
    }
    // A public entry's exports are listed in its summary row, so they are held to that row's bounds;
    // an internal helper's never are. (A WASM entry's are bounded by the manifest schema.)
    const over = file.role === 'entry' && analysis.value.exportNames ? exportsOverLimit(analysis.value.exportNames) : undefined;
    if (over !== undefined) {
      node.failure = { code: 'module-over-limit', message: `${node.displayName}: ${over}` };
      continue;
    }
    node.source = source;
    if (analysis.value.exportNames) node.exports = analysis.value.exportNames;
    for (const [request, target] of analysis.value.imports) node.imports.set(request, keyOf(target));
    node.ownSource = {
      id: graphId,
      kind: file.role === 'internal' ? 'internal' : producer ? 'npm-bundle' : 'js',
      content: source,
      ...(producer ? { producer } : {}),
    };
  }

  // Imports name graph keys until every node is known; the bridge is the only key outside the pack.
  const edges = (key: string): string[] => [...(nodes.get(key)?.imports.values() ?? [])].filter((k) => k !== WASM_BRIDGE_MODULE_ID);
  const cycle = findCycle(nodes.keys(), edges, (key) => key.startsWith('file:'));
  if (cycle) {
    const names = cycle.map((key) => nodes.get(key)?.displayName ?? key).join(', ');
    return fail('internal-cycle', `These modules import each other in a cycle that includes internal helpers: ${names}.`);
  }

  // A module is ready only when it and everything it imports are ready. Iterate to a fixpoint so
  // failures travel through chains and cycles of public entries.
  let changed = true;
  while (changed) {
    changed = false;
    for (const node of nodes.values()) {
      if (node.failure) continue;
      for (const dep of edges(node.key)) {
        const target = nodes.get(dep);
        if (!target || target.failure) {
          const cause = target?.failure;
          node.failure = {
            code: cause?.code ?? 'js-import-unresolved',
            message: `${node.displayName} imports ${target?.displayName ?? dep}, which is unavailable: ${cause?.message ?? 'not found'}`,
          };
          changed = true;
          break;
        }
      }
    }
  }

  // Internal helpers that failed but no entry uses still deserve a word.
  const used = new Set<string>();
  for (const node of nodes.values()) for (const dep of edges(node.key)) used.add(dep);
  for (const node of nodes.values()) {
    if (node.key.startsWith('file:') && node.failure && !used.has(node.key)) warnings.push({ code: node.failure.code, message: node.failure.message });
  }

  const modules = new Map<string, ExecutableModule>();
  const closureSources = (root: string): GraphSource[] => {
    const seen = new Set<string>();
    const out = new Map<string, GraphSource>();
    const stack = [root];
    while (stack.length) {
      const key = stack.pop() as string;
      if (seen.has(key)) continue;
      seen.add(key);
      const node = nodes.get(key);
      if (!node?.ownSource) continue;
      for (const s of [node.ownSource, ...node.extraSources]) out.set(s.id, s);
      stack.push(...edges(key));
    }
    return [...out.values()];
  };
  for (const node of nodes.values()) {
    if (node.failure || node.source === undefined) continue;
    const imports: Record<string, string> = {};
    for (const [request, key] of node.imports) imports[request] = key === WASM_BRIDGE_MODULE_ID ? key : (nodes.get(key)?.moduleId ?? key);
    if (modules.has(node.moduleId)) throw new ModuleIdCollisionError(`module id ${node.moduleId} derived twice in ${packName}@${packVersion}`);
    modules.set(node.moduleId, {
      moduleId: node.moduleId,
      kind: node.kind,
      packName,
      packVersion,
      ...(node.specifier !== undefined ? { specifier: node.specifier } : {}),
      displayName: node.displayName,
      source: node.source,
      imports,
      digest: moduleGraphDigest(closureSources(node.key), powers.sha256),
      ...(node.wasm ? { wasm: node.wasm } : {}),
      ...(node.ownSource ? { graphSources: [node.ownSource, ...node.extraSources].map(deliveredSource) } : {}),
    });
  }

  const entries: LoadedEntry[] = [];
  for (const [index, file] of input.files.entries()) {
    if (file.role !== 'entry') continue;
    const node = nodes.get(keys[index] ?? '');
    if (!node) continue;
    const ready = node.failure === undefined ? modules.get(node.moduleId) : undefined;
    const declaredExports = file.entry.kind === 'wasm' ? file.entry.exports.map((e) => (typeof e === 'string' ? e : e.as)) : undefined;
    entries.push({
      specifier: file.specifier,
      kind: node.kind,
      status: ready ? 'ready' : 'skipped',
      ...(node.failure ? { failure: node.failure } : {}),
      ...(ready ? { moduleId: ready.moduleId, digest: ready.digest } : {}),
      ...((node.exports ?? declaredExports) ? { exports: node.exports ?? declaredExports } : {}),
      ...(declaredExports ? { declaredExports } : {}),
      ...(ready?.wasm ? { signatures: ready.wasm.exports.map((e) => ({ as: e.as, params: [...e.params], results: [...e.results] })) } : {}),
      ...(file.entry.description !== undefined ? { description: file.entry.description } : {}),
    });
  }
  return ok({ entries, modules, warnings, analysis: analysisCounts });
}
