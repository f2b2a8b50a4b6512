// packs.* over the installer. Each mutating call runs under the installer's root lock, forwards
// its progress as `install-progress` events tagged with the caller's operation id, and — when it
// changed what is installed — reloads the catalog and announces `catalog-changed`, so every face
// (window, browser tabs) refreshes from the same source. An install or update examines the pack
// with the catalog before the ledger records it, so a pack discovery cannot handle is undone,
// never recorded half-way.

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { EventHub } from '../../shared/contract/events.ts';
import type { InstalledPack } from '../../shared/contract/pack-schemas.ts';
import { trustCovers, type LifecycleScript, type PackRecord } from '../../shared/protocol/ledger.ts';
import { searchIndex } from '../../shared/protocol/registry-index.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { createInstaller, loadRegistryIndex, type Installer, type ProgressListener } from '../install/index.ts';

type Operation = 'install' | 'update' | 'uninstall' | 'trust' | 'rebuild';

export interface PackHandlerDeps {
  readonly root: string;
  readonly catalog: DiscoveryCatalog;
  readonly events: EventHub;
  /** The registry to use for the next operation (from settings). */
  readonly registry: () => Promise<string | undefined>;
  /** The registry index search reads; the bundled one by default. */
  readonly registryIndex?: string;
}

const scriptView = (script: LifecycleScript) => ({ package: script.package, version: script.version, event: script.event, command: script.command, own: script.own });

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
  };
}

export function packHandlers(deps: PackHandlerDeps): {
  'packs.list': Handler<'packs.list'>;
  'packs.search': Handler<'packs.search'>;
  'packs.install': Handler<'packs.install'>;
  'packs.uninstall': Handler<'packs.uninstall'>;
  'packs.update': Handler<'packs.update'>;
  'packs.trust': Handler<'packs.trust'>;
  'packs.trustDryRun': Handler<'packs.trustDryRun'>;
  'packs.rebuild': Handler<'packs.rebuild'>;
} {
  const { root, catalog, events } = deps;

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
    return createInstaller({ root, ...(registry ? { registry } : {}), compile: examineBeforeRecording });
  }

  function progress(operation: Operation, operationId: string | undefined): ProgressListener {
    return (event) => events.emit({ type: 'install-progress', operation, stage: event.stage, message: event.message, ...(operationId ? { operationId } : {}) });
  }

  async function record(name: string): Promise<Result<InstalledPack>> {
    const listed = await (await installer()).list();
    if (!listed.ok) return listed;
    const found = listed.value.packs.find((pack) => pack.name === name);
    return found ? ok(packView(found)) : fail('not-installed', `No pack named ${name} is installed.`);
  }

  /** After a mutation: rediscover, tell every face, answer with the pack's ledger row. */
  async function settle<T extends { name: string }>(operation: Operation, operationId: string | undefined, result: Result<T>): Promise<Result<T>> {
    if (!result.ok) {
      events.emit({ type: 'install-progress', operation, stage: 'failed', message: result.message, ...(operationId ? { operationId } : {}) });
      return result;
    }
    const reloaded = await catalog.reload();
    if (reloaded.ok) {
      events.emit({ type: 'catalog-changed', reason: operation, packCount: reloaded.value.packs, moduleCount: reloaded.value.readyModules + reloaded.value.skippedModules });
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
      return listed.ok ? ok({ packs: listed.value.packs.map(packView) }) : listed;
    },
    'packs.search': async ({ term }) => {
      const index = await loadRegistryIndex(deps.registryIndex);
      if (!index.ok) return index;
      return ok({ hits: searchIndex(index.value, term).map(({ keywords: _keywords, ...hit }) => hit) });
    },
    'packs.install': async ({ spec, operationId }) => {
      const result = await (await installer()).install(spec, { onProgress: progress('install', operationId) });
      return settleToRow('install', operationId, result);
    },
    'packs.update': async ({ name, to, operationId }) => {
      const result = await (await installer()).update(name, { onProgress: progress('update', operationId), ...(to ? { to } : {}) });
      return settleToRow('update', operationId, result);
    },
    'packs.uninstall': async ({ name, operationId }) => {
      const result = await (await installer()).uninstall(name, { onProgress: progress('uninstall', operationId) });
      const settled = await settle('uninstall', operationId, result);
      return settled.ok ? ok({ name: settled.value.name }) : settled;
    },
    'packs.trust': async ({ name, operationId }) => {
      const result = await (await installer()).trust(name, { onProgress: progress('trust', operationId) });
      return settleToRow('trust', operationId, result);
    },
    'packs.rebuild': async ({ name, operationId }) => {
      const result = await (await installer()).rebuild(name, { onProgress: progress('rebuild', operationId) });
      return settleToRow('rebuild', operationId, result);
    },
    'packs.trustDryRun': async ({ name }) => {
      const plan = await (await installer()).trustDryRun(name);
      if (!plan.ok) return plan;
      return ok({ name: plan.value.name, version: plan.value.version, integrity: plan.value.integrity, scripts: plan.value.scripts.map(scriptView) });
    },
  };
}
