// The main-side composition: one object per data directory that owns the catalog and everything
// that serves the contract (installer calls, settings, workflows, the kernel), and hands the three
// faces (Electron IPC, web host, tests) the same dispatcher and event hub. dispose() releases what
// it owns; nothing here is a module-level singleton.

import { mkdir } from 'node:fs/promises';
import { realpath } from 'node:fs/promises';
import { createDispatcher, type Dispatcher, type Handlers } from '../../shared/contract/dispatcher.ts';
import { createEventHub, type EventHub } from '../../shared/contract/events.ts';
import type { ReconcileSummary } from '../../shared/contract/schemas.ts';
import { trustCovers } from '../../shared/protocol/ledger.ts';
import { fail, ok, type Failure, type Result } from '../../shared/protocol/result.ts';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { activePackNames, createInstaller } from '../install/index.ts';
import { readLedger } from '../install/ledger-store.ts';
import { catalogHandlers } from './catalog-handlers.ts';
import { codeHandlers } from './code-handlers.ts';
import { createCodeRunner } from './code-runner.ts';
import { packHandlers } from './pack-handlers.ts';
import { createRedactor } from './redact.ts';
import { settingsHandlers } from './settings-handlers.ts';
import { createSettingsStore } from './settings-store.ts';
import { workflowHandlers } from './workflow-handlers.ts';
import { createWorkflowStore } from './workflow-store.ts';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';

/** How long an operation from a window waits for another one on the same root before answering `busy`. */
export const APP_LOCK_WAIT_MS = 60_000;

export interface AppServicesOptions {
  /** The data directory: the managed install root, settings and saved workflows. */
  readonly dataDir: string;
  /** Registry index for packs.search (file or https URL); the bundled one by default. */
  readonly registryIndex?: string;
  /** Where bugs are reported (a throwing handler, a contract violation). */
  readonly onBug?: (where: string, error: unknown) => void;
  /** Start-up reconcile could not run (e.g. a damaged ledger); the app still starts. */
  readonly onReconcileFailure?: (failure: Failure) => void;
}

export interface AppServices {
  readonly dataDir: string;
  readonly catalog: DiscoveryCatalog;
  readonly events: EventHub;
  readonly dispatcher: Dispatcher;
  dispose(): Promise<void>;
}

export async function createAppServices(options: AppServicesOptions): Promise<Result<AppServices>> {
  const dataDir = options.dataDir;
  await mkdir(dataDir, { recursive: true });
  const onBug = options.onBug ?? ((where, error) => console.error(`[sandbox-packs] bug in ${where}:`, error));

  // A managed root left half-done by a killed operation is rolled back or finished from its
  // journal, and a damaged ledger restored from its backup (or rebuilt from the tree), before
  // anything reads it. If that cannot run, the app still starts: packs.list then reports the
  // problem, and discovery treats the root as managed with nothing active until it is repaired.
  const reconciled = await createInstaller({ root: dataDir }).reconcile();
  if (!reconciled.ok && reconciled.code !== 'busy') options.onReconcileFailure?.(reconciled);

  const opened = await openCatalog({ root: dataDir, onlyPacks: () => activePackNames(dataDir), compiler: createNpmCompiler({ root: dataDir }) });
  if (!opened.ok) return opened;
  const catalog = opened.value;

  // Settings and saved workflows damaged on disk are repaired when read (from their backups);
  // each repair joins what Diagnostics shows under start-up reconcile. All are read once now, so
  // a repair is reported at start rather than whenever the file happens to be opened.
  const repairs: string[] = [];
  const onRepaired = (sentence: string): void => void repairs.push(sentence);
  const ledger = await readLedger(dataDir);
  const settings = createSettingsStore(dataDir, ledger.ok && ledger.value ? { registry: ledger.value.registry } : {}, { onRepaired });
  const workflows = createWorkflowStore(dataDir, WorkflowSchema, { onRepaired });
  await settings.get();
  const saved = await workflows.list();
  if (saved.ok) for (const name of saved.value) await workflows.load(name);
  const reconcile = (): ReconcileSummary => {
    if (reconciled.ok) return { ok: true, fixed: [...reconciled.value.fixed, ...repairs].slice(-256), missing: [...reconciled.value.missing] };
    const also = repairs.length ? ` Also repaired: ${repairs.join(' ')}` : '';
    return { ok: false, code: reconciled.code, message: `${reconciled.message}${also}`.slice(0, 2000) };
  };
  const events = createEventHub((error) => onBug('event listener', error));

  const redact = createRedactor([dataDir, await realpath(dataDir)]);

  const isTrusted = async (packName: string): Promise<boolean> => {
    const read = await readLedger(dataDir);
    const record = read.ok ? read.value?.packs[packName] : undefined;
    return record !== undefined && trustCovers(record);
  };

  // Sandbox and WASM worker pools start on the first run, not at launch.
  const runner = createCodeRunner(catalog);

  const handlers: Handlers = {
    ...packHandlers({
      root: dataDir,
      catalog,
      events,
      registry: async () => {
        const current = await settings.get();
        return current.ok ? current.value.registry : undefined;
      },
      ...(options.registryIndex ? { registryIndex: options.registryIndex } : {}),
      // A window waits (showing the `waiting` stage) while the CLI or another window works on the root.
      lockWaitMs: APP_LOCK_WAIT_MS,
      // A repair made later, by an operation that found what a killed CLI or web host left, joins them.
      onRepaired,
    }),
    ...catalogHandlers({ catalog, isTrusted, reconcile }),
    ...settingsHandlers(settings),
    ...codeHandlers(runner, catalog),
    ...workflowHandlers(workflows),
  };

  const dispatcher = createDispatcher(redactAll(handlers, redact), { onBug });
  return ok({
    dataDir,
    catalog,
    events,
    dispatcher,
    async dispose() {
      // The catalog holds no OS resources; the runner owns the worker pools.
      await runner.close();
    },
  });
}

/**
 * Every failure message passes the path redactor, and so does every value built from pack or
 * install data (packs.*, catalog.*). User data (workflows, run results) is returned as it is.
 */
function redactAll(handlers: Handlers, redact: <T>(value: T) => T): Handlers {
  const wrapped: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers) as [string, (request: unknown, context: unknown) => Promise<Result<unknown>>][]) {
    const redactValue = name.startsWith('packs.') || name.startsWith('catalog.');
    wrapped[name] = async (request: unknown, context: unknown) => {
      const result = await handler(request, context);
      if (!result.ok) return fail(result.code, redact(result.message));
      return redactValue ? redact(result) : result;
    };
  }
  return wrapped as unknown as Handlers;
}
