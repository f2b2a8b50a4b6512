// The installer's public surface for other parts (catalog, CLI, app, server).
export { createInstaller, type Installer, type InstallerOptions, type OpOptions, type TrustDryRun } from './installer.ts';
export type { InstallOutcome } from './outcome.ts';
export { INSTALL_CODES, type InstallCode, type InstallResult } from './install-codes.ts';
export type { ProgressListener } from './root-ops.ts';
export type { RebuildOutcome } from './trust.ts';
export { activePackNames } from './active-packs.ts';
export { parseSpec } from './spec.ts';
export { loadRegistryIndex, BUNDLED_INDEX } from './registry-search.ts';
