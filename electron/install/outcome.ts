// What an install, update, trust or rebuild answers about the pack it touched. Its own file so
// that installer.ts (which calls trust.ts) and trust.ts both build it without trust.ts importing
// the installer back.

import type { InstallMode, LifecycleScript, PackInstallStatus, PackRecord } from '../../shared/protocol/ledger.ts';

export interface InstallOutcome {
  readonly name: string;
  readonly version: string;
  readonly installMode: InstallMode;
  readonly status: PackInstallStatus;
  readonly integrity: string;
  readonly resolved: string;
  readonly sourceLabel: 'registry' | 'unverified source';
  readonly scripts: readonly LifecycleScript[];
  /** Set by update: the version that was replaced. */
  readonly previousVersion?: string;
}

export function outcomeOf(record: PackRecord, previousVersion?: string): InstallOutcome {
  return {
    name: record.name,
    version: record.version,
    installMode: record.installMode,
    status: record.status,
    integrity: record.integrity,
    resolved: record.resolved,
    sourceLabel: record.sourceLabel,
    scripts: record.scripts,
    ...(previousVersion ? { previousVersion } : {}),
  };
}
