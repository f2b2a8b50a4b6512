// The one composition root of the Node side: for one data directory (install root), the catalog,
// the installer's pack handlers, settings, workflows and the code runner behind one dispatcher and
// one event hub. Every face composes here — the app (Electron window, web host, MCP) through
// app-services.ts, the CLI through cli/cli-services.ts — so a rule (who is trusted, which paths
// are redacted, which packs are active) is written once. Where a face differs it says so in
// ComposeOptions: a long-lived app opens and repairs the root at start and discovers at once; a
// one-shot command leaves a missing root missing and discovers only when a call needs it.

import { mkdir, realpath } from 'node:fs/promises';
import { createDispatcher, type Dispatcher, type DispatcherOptions, type Handlers } from '../../shared/contract/dispatcher.ts';
import { createEventHub, type EventHub } from '../../shared/contract/events.ts';
import type { ReconcileSummary } from '../../shared/contract/schemas.ts';
import { fail, ok, type Failure, type Result } from '../../shared/protocol/result.ts';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { createInstaller } from '../install/index.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';
import { catalogHandlers } from './catalog-handlers.ts';
import { codeHandlers } from './code-handlers.ts';
import { createCodeRunner, type CodeRunnerOptions } from './code-runner.ts';
import { packHandlers, trustedForUse } from './pack-handlers.ts';
import { createRedactor } from './redact.ts';
import { settingsHandlers } from './settings-handlers.ts';
import { createSettingsStore } from './settings-store.ts';
import { workflowHandlers } from './workflow-handlers.ts';
import { secretHandlers, type PickFolder } from './secret-handlers.ts';
import { createFileSecretStore, type SecretStore } from './secret-store.ts';
import { createWorkspaceStore } from './workspace-store.ts';
import { createWorkflowStore } from './workflow-store.ts';

export interface ComposeOptions {
  /** The data directory: the managed install root, settings and saved workflows. */
  readonly dataDir: string;
  /**
   * 'start' (the app): create the directory, reconcile the root (what a killed operation left)
   * and read the settings and workflows once, so repairs are reported at start and Diagnostics
   * shows them. 'as-is' (a CLI command): touch nothing on open; each mutating command
   * reconciles first itself (cli-support.ts), and an install of a bad spec leaves a missing root missing.
   */
  readonly open: 'start' | 'as-is';
  /** 'eager': discover the root now (an unreadable root fails composing); 'lazy': on the first call that needs the catalog. */
  readonly catalog: 'eager' | 'lazy';
  /**
   * Where a call's registry comes from. 'settings' (the app): the user's choice in settings, by
   * default the one the root remembers. `{ given }` (the CLI): the command's --registry, else the
   * one the root remembers — a command never picks up a registry set in the app's settings.
   */
  readonly registry: 'settings' | { readonly given?: string };
  /** Registry index for packs.search (file or https URL); the bundled one by default. */
  readonly registryIndex?: string;
  /** How long a mutating call waits for another one on the same root before answering `busy`. */
  readonly lockWaitMs?: number;
  readonly runner?: CodeRunnerOptions;
  /** Told each repair of a data file or of what a killed operation left (the app also lists them in Diagnostics). */
  readonly onRepaired?: (sentence: string) => void;
  /** Start-up reconcile could not run (e.g. a damaged ledger); the services still open. */
  readonly onReconcileFailure?: (failure: Failure) => void;
  readonly dispatcher?: DispatcherOptions;
  /**
   * Replace the data directory's absolute path in every failure and every packs.* / catalog.*
   * answer (redact.ts). On for the app: its answers go to a page, a browser tab, an agent over
   * MCP — clients that must not learn the user's paths. Off only for the CLI, see cli-services.ts.
   */
  readonly redactPaths: boolean;
  /** Where secrets are kept: the desktop app seals them with safeStorage; by default the owner-only file. */
  readonly secretStore?: SecretStore;
  /** The system's folder picker (the desktop app), for workspaces.pick from its window. */
  readonly pickFolder?: PickFolder;
}

export interface ComposedServices {
  readonly dataDir: string;
  /** With 'lazy', the synchronous reads need openCatalog() first. */
  readonly catalog: DiscoveryCatalog;
  readonly events: EventHub;
  readonly dispatcher: Dispatcher;
  /** Discover the root now, if not yet (the catalog itself when 'eager'). */
  openCatalog(): Promise<Result<DiscoveryCatalog, 'root-unreadable'>>;
  dispose(): Promise<void>;
}

export async function composeServices(options: ComposeOptions): Promise<Result<ComposedServices>> {
  const { dataDir } = options;
  const starting = options.open === 'start';
  const repairs: string[] = [];
  const onRepaired = (sentence: string): void => {
    if (starting) repairs.push(sentence);
    options.onRepaired?.(sentence);
  };
  const installer = createInstaller({ root: dataDir });

  let reconciled: Awaited<ReturnType<typeof installer.reconcile>> | undefined;
  if (starting) {
    await mkdir(dataDir, { recursive: true });
    // A managed root left half-done by a killed operation is rolled back or finished from its
    // journal, and a damaged ledger restored from its backup (or rebuilt from the tree), before
    // anything reads it. If that cannot run, the services still open: packs.list then reports the
    // problem, and discovery treats the root as managed with nothing active until it is repaired.
    reconciled = await installer.reconcile();
    if (!reconciled.ok && reconciled.code !== 'busy') options.onReconcileFailure?.(reconciled);
  }

  const catalog = options.catalog === 'eager' ? await openRootCatalog(dataDir) : undefined;
  if (catalog && !catalog.ok) return catalog;
  const lazy = catalog ? undefined : onDemandCatalog(dataDir);
  const view = catalog ? catalog.value : (lazy as OnDemandCatalog).view;

  /** The registry the root's ledger remembers (the settings' default, on every face). */
  const rememberedRegistry = async (): Promise<string | undefined> => {
    const listed = await installer.list();
    return listed.ok ? listed.value.registry : undefined;
  };
  const remembered = await rememberedRegistry();
  const settings = createSettingsStore(dataDir, remembered ? { registry: remembered } : {}, { onRepaired });
  const workflows = createWorkflowStore(dataDir, WorkflowSchema, { onRepaired });
  const secrets = options.secretStore ?? createFileSecretStore(dataDir);
  const workspaces = createWorkspaceStore(dataDir, { onRepaired });
  if (starting) {
    // Settings and saved workflows damaged on disk are repaired when read (from their backups);
    // all are read once now, so a repair is reported at start rather than whenever a file is opened.
    await settings.get();
    const saved = await workflows.list();
    if (saved.ok) for (const name of saved.value) await workflows.load(name);
  }
  const reconcile = (): ReconcileSummary | null => {
    if (!reconciled) return null;
    if (reconciled.ok) return { ok: true, fixed: [...reconciled.value.fixed, ...repairs].slice(-256), missing: [...reconciled.value.missing] };
    const also = repairs.length ? ` Also repaired: ${repairs.join(' ')}` : '';
    return { ok: false, code: reconciled.code, message: `${reconciled.message}${also}`.slice(0, 2000) };
  };

  const events = createEventHub((error) => options.dispatcher?.onBug?.('event listener', error));
  const isTrusted = async (packName: string): Promise<boolean> => {
    const read = await installer.list();
    const record = read.ok ? read.value.packs.find((pack) => pack.name === packName) : undefined;
    return record !== undefined && trustedForUse(record);
  };
  // Sandbox and WASM worker pools start on the first run, not on open.
  const runner = createCodeRunner(view, options.runner);

  const handlers: Handlers = {
    ...packHandlers({
      root: dataDir,
      catalog: view,
      events,
      registry: async () => {
        const from = options.registry;
        if (from !== 'settings') return from.given ?? (await rememberedRegistry());
        const current = await settings.get();
        return current.ok ? current.value.registry : undefined;
      },
      ...(options.registryIndex ? { registryIndex: options.registryIndex } : {}),
      ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
      // A repair made later, by an operation that found what a killed process left, joins them.
      onRepaired,
    }),
    ...catalogHandlers({ catalog: view, isTrusted, reconcile }),
    ...settingsHandlers(settings),
    ...codeHandlers(runner, view, { secrets, workspaces }),
    ...workflowHandlers(workflows, workspaces),
    ...secretHandlers(secrets, workspaces, options.pickFolder),
  };

  const redact = options.redactPaths ? createRedactor([dataDir, await realpath(dataDir)]) : undefined;
  const dispatcher = createDispatcher(redact ? redactAll(handlers, redact) : handlers, options.dispatcher ?? {});
  return ok({
    dataDir,
    catalog: view,
    events,
    dispatcher,
    openCatalog: () => (catalog ? Promise.resolve(catalog) : (lazy as OnDemandCatalog).open()),
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

interface OnDemandCatalog {
  readonly view: DiscoveryCatalog;
  open(): Promise<Result<DiscoveryCatalog, 'root-unreadable'>>;
}

/**
 * A DiscoveryCatalog that discovers the root on first need: `reload` and `examine` (an install,
 * an update) open it themselves; the synchronous reads need `open()` first — reading before is a
 * bug in the caller, not a user's mistake.
 */
function onDemandCatalog(root: string): OnDemandCatalog {
  let opened: Promise<Result<DiscoveryCatalog, 'root-unreadable'>> | undefined;
  let current: DiscoveryCatalog | undefined;
  const open = (): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> => {
    opened ??= openRootCatalog(root).then((result) => {
      if (result.ok) current = result.value;
      else opened = undefined;
      return result;
    });
    return opened;
  };
  const ready = (): DiscoveryCatalog => {
    if (!current) throw new Error('the catalog was read before the command opened it');
    return current;
  };
  const view: DiscoveryCatalog = {
    root,
    summaries: () => ready().summaries(),
    diagnostics: () => ready().diagnostics(),
    resolveForExecution: (declarations) => ready().resolveForExecution(declarations),
    authorizeDelivery: (moduleId, principal, part) => ready().authorizeDelivery(moduleId, principal, part),
    skillDoc: (packName) => ready().skillDoc(packName),
    snapshot: () => ready().snapshot(),
    holdForSetup: (packNames, sentence) => ready().holdForSetup(packNames, sentence),
    async reload() {
      if (!current) {
        const first = await open();
        if (!first.ok) return first;
      }
      return ready().reload();
    },
    async examine(packName) {
      const first = await open();
      return first.ok ? first.value.examine(packName) : first;
    },
  };
  return { view, open };
}
