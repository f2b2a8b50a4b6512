// packs.* over the installer. Each mutating call runs under the installer's root lock, forwards
// its progress as `install-progress` events tagged with the caller's operation id, and — when it
// changed what is installed — reloads the catalog and announces `catalog-changed`, so every face
// (window, browser tabs) refreshes from the same source. An install or update examines the pack
// with the catalog before the ledger records it, so a pack discovery cannot handle is undone,
// never recorded half-way. An install or update with an operation id can be stopped by
// packs.cancel: npm is stopped and what it changed is rolled back (install-cancelled).

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { EventHub } from '../../shared/contract/events.ts';
import type { InstalledPack } from '../../shared/contract/pack-schemas.ts';
import { trustCovers, type LifecycleScript, type PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { createInstaller, type Installer, type ProgressListener } from '../install/index.ts';
import { DEFAULT_REGISTRY } from '../install/npm-root.ts';
import { createPackSearch } from '../install/registry-search.ts';
import { readInstalledPackageJson } from '../install/inspect.ts';
import { compareVersions, fetchPackument, manifestSurface, removedSurface } from '../install/registry-metadata.ts';
import { assetPath, SHIPPED_PACKS, type AssetId } from '../platform/assets.ts';
import { packDetails } from './pack-details.ts';
import { trustForUse } from '../../shared/contract/pack-state.ts';
import { versionCapability } from '../install/update-capability.ts';
import type { UpdateCheck } from '../../shared/contract/pack-schemas.ts';
import path from 'node:path';
import { z } from 'zod';

type Operation = 'install' | 'update' | 'uninstall' | 'trust' | 'rebuild';

export interface PackHandlerDeps {
  readonly root: string;
  readonly catalog: DiscoveryCatalog;
  readonly events: EventHub;
  /** The registry to use for the next operation (from settings). */
  readonly registry: () => Promise<string | undefined>;
  /** The registry index search reads; the bundled one by default. */
  readonly registryIndex?: string;
  /** How long an operation waits for another one on the same root (reported as the `waiting` stage) before answering `busy`. Default 0. */
  readonly lockWaitMs?: number;
  /** Told each repair an operation made first (what a killed process left), as well as the `repairing` event every face gets. */
  readonly onRepaired?: (sentence: string) => void;
}

const scriptView = (script: LifecycleScript) => ({
  package: script.package,
  version: script.version,
  event: script.event,
  command: script.command,
  own: script.own,
});

export function packView(record: PackRecord): InstalledPack {
  return {
    name: record.name,
    version: record.version,
    installMode: record.installMode,
    status: record.status,
    sourceLabel: record.sourceLabel,
    integrity: record.integrity,
    scripts: record.scripts.map(scriptView),
    trusted: trustCovers(record),
    installedAt: record.installedAt,
    ...(record.useDecision ? { useDecision: record.useDecision.trusted ? 'trusted' : 'untrusted' } : {}),
    ...(record.setupFailure ? { setupFailure: { code: record.setupFailure.code, message: record.setupFailure.message } } : {}),
  };
}

/** Whether the user trusts the pack for agents and its SKILL.md as documentation (pack-state.ts's one rule). */
export function trustedForUse(record: PackRecord): boolean {
  return trustForUse({ ...packView(record), ...(isShipped(record) ? { shipped: true } : {}) }) === 'trusted';
}

/** Seeded from the app's own tarball of that name (not merely a tarball that claims the name). */
export function isShipped(record: PackRecord): boolean {
  if (record.source !== 'tarball-file') return false;
  const shipped = SHIPPED_PACKS.find((p) => p.name === record.name);
  if (!shipped) return false;
  const spec = record.spec.replace(/^file:/, '');
  return path.dirname(path.resolve(spec)) === path.dirname(assetPath(`pack:${shipped.dir}` as AssetId));
}

/** Claims in the installed package.json shown beside a trust decision; npm allows a string or an object. */
const PeopleField = z.union([z.string(), z.looseObject({ name: z.string().optional(), url: z.string().optional() })]).optional();
const ClaimsSchema = z.looseObject({ author: PeopleField, repository: PeopleField, description: z.string().optional() });
const claimText = (value: z.infer<typeof PeopleField>): string | undefined => (typeof value === 'string' ? value : (value?.name ?? value?.url))?.slice(0, 500);

export function packHandlers(deps: PackHandlerDeps): {
  'packs.list': Handler<'packs.list'>;
  'packs.search': Handler<'packs.search'>;
  'packs.install': Handler<'packs.install'>;
  'packs.cancel': Handler<'packs.cancel'>;
  'packs.uninstall': Handler<'packs.uninstall'>;
  'packs.update': Handler<'packs.update'>;
  'packs.trust': Handler<'packs.trust'>;
  'packs.trustDryRun': Handler<'packs.trustDryRun'>;
  'packs.rebuild': Handler<'packs.rebuild'>;
  'packs.updates': Handler<'packs.updates'>;
  'packs.details': Handler<'packs.details'>;
  'packs.decideUse': Handler<'packs.decideUse'>;
} {
  const { root, catalog, events } = deps;
  // Keeps the registry's answer briefly, so each keystroke in the search field is not a request.
  const search = createPackSearch();
  /** Installs and updates that can be cancelled, by the caller's operation id. */
  const running = new Map<string, AbortController>();

  /** Runs `body` with a signal packs.cancel can fire for `operationId` (a call without an id cannot be cancelled). */
  async function cancellable<T>(operationId: string | undefined, body: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    if (operationId === undefined || running.has(operationId)) return body();
    const controller = new AbortController();
    running.set(operationId, controller);
    try {
      return await body(controller.signal);
    } finally {
      running.delete(operationId);
    }
  }

  /**
   * Runs after npm and before the ledger records the pack: an active pack is discovered once with
   * the catalog's compiler. Discovery answers a bad pack with skips and reasons; if it throws
   * anyway (or the root cannot be read), the installer puts the tree back and records nothing.
   */
  async function examineBeforeRecording(_root: string, pack: PackRecord): Promise<void> {
    if (pack.status !== 'active') return;
    const examined = await catalog.examine(pack.name);
    if (!examined.ok) throw new Error(examined.message);
  }

  async function installer(): Promise<Installer> {
    const registry = await deps.registry();
    return createInstaller({ root, ...(registry ? { registry } : {}), lockWaitMs: deps.lockWaitMs ?? 0, compile: examineBeforeRecording });
  }

  function progress(operation: Operation, operationId: string | undefined): ProgressListener {
    return (event) => {
      if (event.stage === 'repairing') deps.onRepaired?.(event.message);
      events.emit({ type: 'install-progress', operation, stage: event.stage, message: event.message, ...(operationId ? { operationId } : {}) });
    };
  }

  async function record(name: string): Promise<Result<InstalledPack>> {
    const listed = await (await installer()).list();
    if (!listed.ok) return listed;
    const found = listed.value.packs.find((pack) => pack.name === name);
    return found ? ok(await fullView(found)) : fail('not-installed', `No pack named ${name} is installed.`);
  }

  /** The ledger row plus what only the installed files say: the pack's own description, and whether we shipped it. */
  async function fullView(found: PackRecord): Promise<InstalledPack> {
    const pkg = await readInstalledPackageJson(root, `node_modules/${found.name}`);
    const description = pkg.ok ? pkg.value.description?.trim().slice(0, 1000) : undefined;
    return { ...packView(found), ...(description ? { description } : {}), ...(isShipped(found) ? { shipped: true } : {}) };
  }

  async function updateCheck(registry: string, found: PackRecord): Promise<UpdateCheck> {
    const base = { name: found.name, installed: found.version, removedModules: [], removedExports: [] };
    if (found.source !== 'registry') return { ...base, source: 'tarball', state: 'tarball' };
    const packument = await fetchPackument(registry, found.name);
    if (!packument.ok) return { ...base, source: 'registry', state: 'unavailable', message: packument.message };
    const latest = packument.value['dist-tags'].latest;
    const publishedAt = latest ? packument.value.time?.[latest] : undefined;
    if (!latest || compareVersions(latest, found.version) <= 0) return { ...base, source: 'registry', state: 'current', ...(latest ? { latest } : {}) };
    const pkg = await readInstalledPackageJson(root, `node_modules/${found.name}`);
    const before = manifestSurface(found.name, pkg.ok ? pkg.value.nodetool : undefined);
    const after = manifestSurface(found.name, packument.value.versions[latest]?.nodetool);
    const capability = versionCapability(packument.value.versions[latest]);
    return { ...base, source: 'registry', state: 'update', latest, ...(publishedAt ? { publishedAt } : {}), ...removedSurface(before, after), ...capability };
  }

  /** After a mutation: rediscover, tell every face, answer with the pack's ledger row. */
  async function settle<T extends { name: string }>(operation: Operation, operationId: string | undefined, result: Result<T>): Promise<Result<T>> {
    if (!result.ok) {
      events.emit({ type: 'install-progress', operation, stage: 'failed', message: result.message, ...(operationId ? { operationId } : {}) });
      return result;
    }
    const reloaded = await catalog.reload();
    if (reloaded.ok) {
      events.emit({
        type: 'catalog-changed',
        reason: operation,
        packCount: reloaded.value.packs,
        moduleCount: reloaded.value.readyModules + reloaded.value.skippedModules,
      });
    }
    return result;
  }

  async function settleToRow(operation: Operation, operationId: string | undefined, result: Result<{ name: string }>): Promise<Result<InstalledPack>> {
    const settled = await settle(operation, operationId, result);
    return settled.ok ? record(settled.value.name) : settled;
  }

  return {
    'packs.list': async () => {
      const listed = await (await installer()).list();
      if (!listed.ok) return listed;
      const packs = await Promise.all(listed.value.packs.map(fullView));
      return ok({ ...(listed.value.registry ? { registry: listed.value.registry } : {}), packs });
    },
    'packs.updates': async () => {
      const listed = await (await installer()).list();
      if (!listed.ok) return listed;
      const registry = (await deps.registry()) ?? listed.value.registry ?? DEFAULT_REGISTRY;
      return ok({ registry, packs: await Promise.all(listed.value.packs.map((p) => updateCheck(registry, p))) });
    },
    'packs.details': async ({ name }) => {
      const listed = await (await installer()).list();
      if (!listed.ok) return listed;
      const found = listed.value.packs.find((pack) => pack.name === name);
      return found ? ok(await packDetails(root, catalog, found, trustedForUse(found))) : fail('not-installed', `No pack named ${name} is installed.`);
    },
    'packs.search': async ({ term }) =>
      search({ term, registry: (await deps.registry()) ?? DEFAULT_REGISTRY, ...(deps.registryIndex ? { index: deps.registryIndex } : {}) }),
    'packs.install': async ({ spec, operationId }) => {
      const result = await cancellable(operationId, async (signal) =>
        (await installer()).install(spec, { onProgress: progress('install', operationId), ...(signal ? { signal } : {}) }),
      );
      return settleToRow('install', operationId, result);
    },
    'packs.cancel': async ({ operationId }) => {
      const controller = running.get(operationId);
      if (!controller || controller.signal.aborted) return ok({ cancelled: false });
      controller.abort();
      return ok({ cancelled: true });
    },
    'packs.update': async ({ name, to, operationId }) => {
      const result = await cancellable(operationId, async (signal) =>
        (await installer()).update(name, { onProgress: progress('update', operationId), ...(to ? { to } : {}), ...(signal ? { signal } : {}) }),
      );
      return settleToRow('update', operationId, result);
    },
    'packs.uninstall': async ({ name, operationId }) => {
      const result = await (await installer()).uninstall(name, { onProgress: progress('uninstall', operationId) });
      const settled = await settle('uninstall', operationId, result);
      return settled.ok ? ok({ name: settled.value.name }) : settled;
    },
    'packs.trust': async ({ name, operationId, reviewed }) => {
      const result = await (await installer()).trust(name, { onProgress: progress('trust', operationId), ...(reviewed ? { reviewed } : {}) });
      return settleToRow('trust', operationId, result);
    },
    'packs.rebuild': async ({ name, operationId, reviewed }) => {
      const result = await (await installer()).rebuild(name, { onProgress: progress('rebuild', operationId), ...(reviewed ? { reviewed } : {}) });
      return settleToRow('rebuild', operationId, result);
    },
    'packs.decideUse': async ({ name, trusted }) => {
      const result = await (await installer()).decideUse(name, trusted);
      return settleToRow('trust', undefined, result);
    },
    'packs.trustDryRun': async ({ name }) => {
      const plan = await (await installer()).trustDryRun(name);
      if (!plan.ok) return plan;
      const pkg = await readInstalledPackageJson(root, `node_modules/${name}`);
      const claims = pkg.ok ? ClaimsSchema.safeParse(pkg.value) : undefined;
      const manifest = pkg.ok ? z.looseObject({ register: z.string().max(1024).optional() }).safeParse(pkg.value.nodetool) : undefined;
      const author = claims?.success ? claimText(claims.data.author) : undefined;
      const repository = claims?.success ? claimText(claims.data.repository) : undefined;
      const register = manifest?.success ? manifest.data.register : undefined;
      // The publish date is the registry's word; a tarball install has no registry to ask.
      const listed = await (await installer()).list();
      const found = listed.ok ? listed.value.packs.find((p) => p.name === name) : undefined;
      let publishedAt: string | undefined;
      if (found?.source === 'registry') {
        const registry = (await deps.registry()) ?? (listed.ok ? listed.value.registry : undefined) ?? DEFAULT_REGISTRY;
        const packument = await fetchPackument(registry, name, 5_000);
        publishedAt = packument.ok ? packument.value.time?.[plan.value.version] : undefined;
      }
      return ok({
        name: plan.value.name,
        version: plan.value.version,
        integrity: plan.value.integrity,
        scripts: plan.value.scripts.map(scriptView),
        ...(register ? { register } : {}),
        ...(author ? { author } : {}),
        ...(repository ? { repository } : {}),
        ...(publishedAt ? { publishedAt } : {}),
      });
    },
  };
}
