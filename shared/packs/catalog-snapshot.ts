// One immutable view of discovered packs, answering the catalog's questions: summaries,
// diagnostics, resolution of a node's declarations and delivery of a module by id. The catalog
// swaps whole snapshots on reload, so a resolution handed out earlier keeps pointing at the
// objects it was built from. Pure (no I/O), so a browser-side catalog could hold one too.
//
// Entitlement rule for delivery: packs whose package.json says `"private": true` are served to
// `main` principals only; a `browser` principal gets `forbidden`. The WASM bridge module and every
// other ready module are served to both.

import type {
  AuthorizedSandboxModuleDelivery,
  DeliveryPrincipal,
  ExecutableModule,
  ResolvedDeclaration,
  SandboxModuleDelivery,
  SandboxModuleResolution,
  SandboxModuleResolutionError,
  SandboxModuleSummary,
  SandboxPackStatus,
} from '../protocol/catalog.ts';
import { DeclarationListSchema } from '../protocol/declaration.ts';
import type { DeliveredModuleInfo, DeliveryPart } from '../protocol/delivery.ts';
import { formatIssues } from '../protocol/parse.ts';
import { fail, ok, type Result } from '../protocol/result.ts';
import { WASM_BRIDGE_MODULE_ID } from '../protocol/wasm-bridge.ts';
import { wasmBridgeModuleSource } from './wasm-facade.ts';
import { moduleGraphDigest, type Sha256Hex } from './digest.ts';
import { BRIDGE_GRAPH_SOURCE } from './pack-graph.ts';
import type { LoadedPack } from './pack-loader.ts';
import { normalizePackPath, printable } from './pack-path.ts';
import type { SkillDoc } from './skill.ts';
import { splitSpecifier } from './specifier.ts';

interface ModuleRecord {
  readonly module: ExecutableModule;
  readonly private: boolean;
}

export class CatalogSnapshot {
  readonly packs: readonly LoadedPack[];
  readonly #summaries: readonly SandboxModuleSummary[];
  readonly #diagnostics: readonly SandboxPackStatus[];
  readonly #bySpecifier = new Map<string, SandboxModuleSummary>();
  readonly #packsByName = new Map<string, LoadedPack>();
  readonly #modules = new Map<string, ModuleRecord>();

  constructor(packs: readonly LoadedPack[], sha256: Sha256Hex) {
    this.packs = packs;
    const bridge: ExecutableModule = {
      moduleId: WASM_BRIDGE_MODULE_ID,
      kind: 'js',
      packName: '',
      packVersion: '',
      displayName: WASM_BRIDGE_MODULE_ID,
      source: wasmBridgeModuleSource(),
      imports: {},
      digest: moduleGraphDigest([BRIDGE_GRAPH_SOURCE], sha256),
    };
    this.#modules.set(bridge.moduleId, { module: bridge, private: false });
    for (const pack of packs) {
      this.#packsByName.set(pack.name, pack);
      for (const summary of pack.modules) this.#bySpecifier.set(summary.specifier, summary);
      for (const module of pack.graph?.modules.values() ?? []) {
        if (this.#modules.has(module.moduleId)) throw new CatalogInvariantError(`module id ${module.moduleId} appears in two packs`);
        this.#modules.set(module.moduleId, { module, private: pack.private });
      }
    }
    this.#summaries = Object.freeze(packs.flatMap((p) => p.modules));
    this.#diagnostics = Object.freeze(
      packs.map((p) => ({
        name: p.name,
        version: p.version,
        status: p.status,
        ...(p.code ? { code: p.code } : {}),
        ...(p.reason !== undefined ? { reason: p.reason } : {}),
        warnings: p.warnings,
        modules: p.modules,
      })),
    );
  }

  summaries(): readonly SandboxModuleSummary[] {
    return this.#summaries;
  }

  diagnostics(): readonly SandboxPackStatus[] {
    return this.#diagnostics;
  }

  skill(packName: string): Result<SkillDoc, 'not-found' | 'skill-missing'> {
    const pack = this.#packsByName.get(packName);
    if (!pack) return fail('not-found', `No pack named "${printable(packName)}" is installed.`);
    if (!pack.skill) return fail('skill-missing', `${pack.name} has no usable SKILL.md.`);
    return ok(pack.skill);
  }

  resolveForExecution(declarations: unknown): SandboxModuleResolution {
    const parsed = DeclarationListSchema.safeParse(declarations);
    if (!parsed.success) {
      return { ok: false, code: 'declaration-invalid', message: `packages: ${formatIssues(parsed.error.issues)}`, specifier: '' };
    }
    const entries: Record<string, string> = {};
    const resolved: ResolvedDeclaration[] = [];
    for (const declaration of parsed.data) {
      const { specifier } = declaration;
      if (Object.hasOwn(entries, specifier)) {
        return { ok: false, code: 'declaration-invalid', message: `packages: "${printable(specifier)}" is declared twice.`, specifier };
      }
      const summary = this.#bySpecifier.get(specifier);
      if (!summary) return this.#unknown(specifier);
      if (summary.status !== 'ready' || summary.moduleId === undefined || summary.digest === undefined) {
        return {
          ok: false,
          code: 'module-skipped',
          message: `${specifier} was skipped at discovery: ${summary.reason ?? 'no reason recorded'}`,
          specifier,
          packName: summary.packName,
        };
      }
      entries[specifier] = summary.moduleId;
      resolved.push({ specifier, moduleId: summary.moduleId, packName: summary.packName, packVersion: summary.packVersion, digest: summary.digest });
    }
    const modules: Record<string, ExecutableModule> = {};
    const queue = Object.values(entries);
    while (queue.length) {
      const id = queue.pop() as string;
      if (Object.hasOwn(modules, id)) continue;
      const record = this.#modules.get(id);
      // Every import of a ready module targets a ready module of the same snapshot.
      if (!record) throw new CatalogInvariantError(`module ${id} is referenced but not in the snapshot`);
      modules[id] = record.module;
      queue.push(...Object.values(record.module.imports));
    }
    return { ok: true, entries, declarations: resolved, modules };
  }

  #unknown(specifier: string): SandboxModuleResolutionError {
    const split = splitSpecifier(specifier);
    const pack = split ? this.#packsByName.get(split.packName) : undefined;
    if (!split || !pack) {
      return { ok: false, code: 'unknown-specifier', message: `No installed pack provides "${printable(specifier)}".`, specifier };
    }
    if (pack.status === 'rejected') {
      return { ok: false, code: 'module-skipped', message: `${pack.name} was rejected at discovery: ${pack.reason ?? 'no reason recorded'}`, specifier, packName: pack.name };
    }
    const asPath = normalizePackPath(split.subpath);
    if (asPath.ok && pack.internalPaths.includes(asPath.value)) {
      return {
        ok: false,
        code: 'internal-specifier',
        message: `"${printable(specifier)}" is an internal helper of ${pack.name}; declare one of its public modules instead.`,
        specifier,
        packName: pack.name,
      };
    }
    const offered = pack.modules.map((m) => m.specifier).join(', ');
    return {
      ok: false,
      code: 'unknown-specifier',
      message: `${pack.name} does not provide "${printable(specifier)}"${offered ? `; it provides ${offered}` : ''}.`,
      specifier,
      packName: pack.name,
    };
  }

  /** A module's source (or, with `part` 'wasm', a WASM entry's binary) and what a browser needs to verify it. */
  deliver(moduleId: string, principal: DeliveryPrincipal, part: DeliveryPart = 'source'): SandboxModuleDelivery {
    const record = typeof moduleId === 'string' ? this.#modules.get(moduleId) : undefined;
    if (!record) return fail('not-found', `No module with id "${printable(String(moduleId), 64)}" is in the catalog.`);
    if (record.private && principal.kind !== 'main') {
      return fail('forbidden', `${record.module.displayName} belongs to a private pack and is not delivered to the browser.`);
    }
    const { module } = record;
    if (part === 'wasm' && !module.wasm) return fail('not-found', `${module.displayName} is not a WASM module; it has no binary to deliver.`);
    const graph: DeliveredModuleInfo = {
      moduleId: module.moduleId,
      kind: module.kind,
      packName: module.packName,
      packVersion: module.packVersion,
      displayName: module.displayName,
      imports: { ...module.imports },
      sources: module.graphSources ? [...module.graphSources] : [{ id: module.moduleId, kind: 'wasm-bridge', producer: { ...BRIDGE_GRAPH_SOURCE.producer }, content: 'source' }],
      ...(module.wasm
        ? { wasm: { exports: module.wasm.exports.map((e) => ({ wasm: e.wasm, as: e.as, params: [...e.params], ...(e.results[0] ? { result: e.results[0] } : {}) })), memoryPagesMax: module.wasm.memoryPagesMax, budgets: { ...module.wasm.budgets } } }
        : {}),
    };
    const delivery: AuthorizedSandboxModuleDelivery = {
      ok: true,
      moduleId: module.moduleId,
      mediaType: part === 'wasm' ? 'application/wasm' : 'text/javascript',
      body: part === 'wasm' && module.wasm ? module.wasm.bytes : module.source,
      digest: module.digest,
      // The private bridge is never fetched: the kernel supplies it, and the facade's digest covers it.
      dependencies: [...new Set(Object.values(module.imports))].filter((id) => id !== WASM_BRIDGE_MODULE_ID).sort(),
      graph,
    };
    return delivery;
  }
}

/** A snapshot that contradicts itself: a bug in discovery, never a user error. */
export class CatalogInvariantError extends Error {
  override readonly name = 'CatalogInvariantError';
}
