// The installer's public surface for other parts (catalog, CLI, app, server).
export { createInstaller, outcomeOf, type Installer, type InstallerOptions, type InstallOutcome, type OpOptions, type TrustDryRun } from './installer.ts';
export type { ProgressEvent, ProgressListener, ProgressStage } from './root-ops.ts';
export { PROGRESS_STAGES } from './root-ops.ts';
export type { ReconcileReport } from './reconcile.ts';
export type { RebuildOutcome } from './trust.ts';
export { activePackNames } from './active-packs.ts';
export { parseSpec } from './spec.ts';
export { loadRegistryIndex, BUNDLED_INDEX } from './registry-search.ts';

import { createInstaller } from './installer.ts';
/** Reconcile a managed root (app start). A root without a ledger is left alone. */
export async function reconcile(root: string) {
  return createInstaller({ root }).reconcile();
}
