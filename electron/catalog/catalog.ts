// The Node-side catalog: discovery over an install root, held as one immutable snapshot and
// swapped atomically on reload. It is constructed once where packs are discovered (app main, web
// host, CLI) and injected into every consumer; there is no module-level singleton. A resolution
// handed out before a reload keeps the modules it was built from. Resolutions are remembered per
// snapshot and declaration list (resolution-cache.ts), so a Code node run again costs a lookup.
//
// Skill bodies and absolute paths never appear in summaries() or diagnostics(); the UI asks for a
// pack's SKILL.md through skillDoc(), a separate, Node-side call. Delivery entitlement is the
// snapshot's rule (authorizeDelivery below).

import type { DeliveryPart } from '../../shared/protocol/delivery.ts';
import type {
  DeliveryPrincipal,
  SandboxModuleCatalog,
  SandboxModuleDelivery,
  SandboxModuleResolution,
  SandboxModuleSummary,
  SandboxPackStatus,
} from '../../shared/protocol/catalog.ts';
import type { SandboxModuleDeclaration } from '../../shared/protocol/declaration.ts';
import { ok, type Result } from '../../shared/protocol/result.ts';
import { CatalogSnapshot } from '../../shared/packs/catalog-snapshot.ts';
import { packOfSpecifier } from '../../shared/workflow/validate-workflow.ts';
import type { LoadedPack } from '../../shared/packs/pack-loader.ts';
import type { SkillDoc } from '../../shared/packs/skill.ts';
import { discover } from './discover.ts';
import type { NpmModuleCompiler } from './npm-compiler-port.ts';
import { ResolutionCache } from './resolution-cache.ts';
import { sha256Hex } from './sha256.ts';

export type OnlyPacks = ReadonlySet<string> | (() => ReadonlySet<string> | undefined | Promise<ReadonlySet<string> | undefined>);

export interface CatalogOptions {
  readonly root: string;
  /** A managed root's ledger names (or a function reading the ledger at each reload). */
  readonly onlyPacks?: OnlyPacks;
  readonly compiler?: NpmModuleCompiler;
}

export interface ReloadReport {
  readonly packs: number;
  readonly rejectedPacks: number;
  readonly readyModules: number;
  readonly skippedModules: number;
  /** Specifiers that appeared, disappeared, or whose status or graph digest changed. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly durationMs: number;
}

export interface DiscoveryCatalog extends SandboxModuleCatalog {
  readonly root: string;
  /** Rediscover and swap; on `root-unreadable` the previous snapshot stays in place. */
  reload(): Promise<Result<ReloadReport, 'root-unreadable'>>;
  /** SKILL.md of a pack for the UI: frontmatter and body. Untrusted documentation text. */
  skillDoc(packName: string): Result<SkillDoc, 'not-found' | 'skill-missing'>;
  /** The current snapshot (for consumers that need several answers from one consistent view). */
  snapshot(): CatalogSnapshot;
  /**
   * Discover one pack with this catalog's compiler without touching the snapshot. An install
   * examines a pack this way before recording it, so a pack that cannot be discovered is never
   * half-recorded; the compile cache it fills makes the reload after the install cheap.
   */
  examine(packName: string): Promise<Result<LoadedPack | undefined, 'root-unreadable'>>;
  /**
   * Packs being installed behind the open app (the first run's seeding). Until the returned
   * release is called, a module of one of them that does not resolve is answered `busy` with
   * `sentence(packName)` — "install the pack" would be wrong advice — by every caller alike.
   */
  holdForSetup(packNames: readonly string[], sentence: (packName: string) => string): () => void;
}

export async function openCatalog(options: CatalogOptions): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> {
  const build = async (): Promise<Result<CatalogSnapshot, 'root-unreadable'>> => {
    const only = typeof options.onlyPacks === 'function' ? await options.onlyPacks() : options.onlyPacks;
    const found = await discover(options.root, { ...(only ? { onlyPacks: only } : {}), ...(options.compiler ? { compiler: options.compiler } : {}) });
    if (!found.ok) return found;
    return ok(new CatalogSnapshot(found.value.packs, sha256Hex));
  };

  const first = await build();
  if (!first.ok) return first;
  let current = first.value;
  // Per snapshot: a reload's new snapshot starts with no remembered resolutions (resolution-cache.ts).
  const resolutions = new ResolutionCache();
  // Reloads run one after another so the last one started is the one that stays.
  let queue: Promise<unknown> = Promise.resolve();
  const settingUp = setupHolds();

  const catalog: DiscoveryCatalog = {
    root: options.root,
    summaries: (): readonly SandboxModuleSummary[] => current.summaries(),
    diagnostics: (): readonly SandboxPackStatus[] => current.diagnostics(),
    resolveForExecution: (declarations: readonly SandboxModuleDeclaration[]): SandboxModuleResolution =>
      settingUp.answer(declarations, resolutions.resolve(current, declarations), (one) => resolutions.resolve(current, [one])),
    // Delivery entitlement: a pack whose package.json has `"private": true` is served to `main`
    // principals only; `browser` principals get `forbidden`. Unknown ids get `not-found`. See
    // shared/packs/catalog-snapshot.ts.
    authorizeDelivery: async (moduleId: string, principal: DeliveryPrincipal, part?: DeliveryPart): Promise<SandboxModuleDelivery> =>
      current.deliver(moduleId, principal, part),
    skillDoc: (packName: string) => current.skill(packName),
    snapshot: () => current,
    holdForSetup: (packNames, sentence) => settingUp.hold(packNames, sentence),
    async examine(packName: string) {
      const found = await discover(options.root, { onlyPacks: new Set([packName]), ...(options.compiler ? { compiler: options.compiler } : {}) });
      return found.ok ? ok(found.value.packs[0]) : found;
    },
    reload(): Promise<Result<ReloadReport, 'root-unreadable'>> {
      const run = queue.then(async () => {
        const started = performance.now();
        const next = await build();
        if (!next.ok) return next;
        const report = compare(current, next.value, performance.now() - started);
        current = next.value;
        return ok(report);
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
  return ok(catalog);
}

/** The packs held for setup (holdForSetup), and the `busy` answer for a resolution that needs one. */
function setupHolds() {
  const held = new Map<string, { sentence: (packName: string) => string; count: number }>();
  return {
    hold(packNames: readonly string[], sentence: (packName: string) => string): () => void {
      for (const name of packNames) held.set(name, { sentence, count: (held.get(name)?.count ?? 0) + 1 });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const name of packNames) {
          const entry = held.get(name);
          if (entry && entry.count > 1) held.set(name, { ...entry, count: entry.count - 1 });
          else held.delete(name);
        }
      };
    },
    /** A declaration of a held pack that the snapshot does not know makes the answer `busy`, whatever else failed. */
    answer(
      declarations: readonly SandboxModuleDeclaration[],
      resolution: SandboxModuleResolution,
      resolveOne: (declaration: SandboxModuleDeclaration) => SandboxModuleResolution,
    ): SandboxModuleResolution {
      // A declaration list that did not parse is answered as it is: it names no pack to wait for.
      if (resolution.ok || resolution.code === 'declaration-invalid' || held.size === 0) return resolution;
      for (const declaration of declarations) {
        const pack = packOfSpecifier(declaration.specifier);
        const entry = held.get(pack);
        if (!entry) continue;
        const alone = resolveOne(declaration);
        if (!alone.ok && alone.code === 'unknown-specifier')
          return { ok: false, code: 'busy', message: entry.sentence(pack), specifier: declaration.specifier, packName: pack };
      }
      return resolution;
    },
  };
}

function compare(before: CatalogSnapshot, after: CatalogSnapshot, durationMs: number): ReloadReport {
  const key = (s: SandboxModuleSummary): string => `${s.status}:${s.digest ?? s.code ?? ''}`;
  const old = new Map(before.summaries().map((s) => [s.specifier, key(s)]));
  const now = new Map(after.summaries().map((s) => [s.specifier, key(s)]));
  const summaries = after.summaries();
  return {
    packs: after.packs.length,
    rejectedPacks: after.packs.filter((p) => p.status === 'rejected').length,
    readyModules: summaries.filter((s) => s.status === 'ready').length,
    skippedModules: summaries.filter((s) => s.status === 'skipped').length,
    added: [...now.keys()].filter((s) => !old.has(s)).sort(),
    removed: [...old.keys()].filter((s) => !now.has(s)).sort(),
    changed: [...now.entries()]
      .filter(([s, k]) => old.has(s) && old.get(s) !== k)
      .map(([s]) => s)
      .sort(),
    durationMs,
  };
}
