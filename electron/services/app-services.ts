// The app's services for one data directory (the Electron window, the web host and MCP serve the
// same dispatcher and event hub): the one composition (compose-services.ts) as a long-lived app
// opens it — the root created and repaired at start, the catalog discovered at once, repairs kept
// for Diagnostics. dispose() releases what it owns; nothing here is a module-level singleton.

import { ok, type Failure, type Result } from '../../shared/protocol/result.ts';
import { composeServices, type ComposedServices } from './compose-services.ts';
import type { SecretStore } from './secret-store.ts';
import type { PickFolder } from './secret-handlers.ts';

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
  /** Where secrets are kept (the desktop app: sealed with safeStorage); by default the owner-only file. */
  readonly secretStore?: SecretStore;
  /** The system's folder picker (the desktop app only). */
  readonly pickFolder?: PickFolder;
  /**
   * Bench and tests only (scripts/bench/load-server.ts): fetch hosts a run may reach on loopback
   * (see CodeRunnerOptions). No face sets it — not the window, `serve`, `mcp` or the CLI — and no
   * request can: production runs are refused private and loopback addresses.
   */
  readonly testOnlyPrivateFetchHosts?: readonly string[];
}

/** The composed services of the app (its catalog is discovered at start, so it needs no openCatalog). */
export type AppServices = Omit<ComposedServices, 'openCatalog'>;

export async function createAppServices(options: AppServicesOptions): Promise<Result<AppServices>> {
  const onBug = options.onBug ?? ((where, error) => console.error(`[sandbox-packs] bug in ${where}:`, error));
  const composed = await composeServices({
    dataDir: options.dataDir,
    open: 'start',
    catalog: 'eager',
    registry: 'settings',
    ...(options.registryIndex ? { registryIndex: options.registryIndex } : {}),
    // A window waits (showing the `waiting` stage) while the CLI or another window works on the root.
    lockWaitMs: APP_LOCK_WAIT_MS,
    ...(options.onReconcileFailure ? { onReconcileFailure: options.onReconcileFailure } : {}),
    dispatcher: { onBug },
    redactPaths: true,
    ...(options.secretStore ? { secretStore: options.secretStore } : {}),
    ...(options.pickFolder ? { pickFolder: options.pickFolder } : {}),
    ...(options.testOnlyPrivateFetchHosts ? { runner: { testOnlyPrivateFetchHosts: options.testOnlyPrivateFetchHosts } } : {}),
  });
  if (!composed.ok) return composed;
  const { dataDir, catalog, events, dispatcher, dispose } = composed.value;
  return ok({ dataDir, catalog, events, dispatcher, dispose });
}
