// The consent sentences, in one place, worded as the spec's trust model says them: importing a
// module means trusting it with that node's sandbox capabilities; a sandbox-only pack "runs
// inside your workflows with the node's capabilities". Nothing here may say or imply that a pack
// needs no trust — the test holds that line.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

/** Shown at install time and in the Code node's package picker. */
export const IMPORT_CONSENT =
  "Importing a module means trusting it with that node's sandbox capabilities: its network access, its workspace, its secrets.";

/** What a sandbox-only pack is, without ever calling it trust-free. */
export const SANDBOX_ONLY_CONSENT = 'This pack runs inside your workflows with the node\'s capabilities. It runs no code on your computer outside the sandbox and ran no install scripts.';

/** Why a register or hybrid pack waits. */
export const NEEDS_TRUST_CONSENT =
  'This pack runs code on your computer outside the sandbox (host code or install scripts). It stays inactive until you trust it. Trust it only if you trust its author and the scripts below.';

/** The explicit confirmation before scripts run. */
export function trustConfirmation(name: string, version: string, scriptCount: number): string {
  const scripts = scriptCount === 0 ? 'no install scripts' : scriptCount === 1 ? 'the install script listed above' : `the ${scriptCount} install scripts listed above`;
  return `Trust ${displayText(name)}@${displayText(version)} and run ${scripts} on this computer, against the files already installed? Its host code may then run with your user's permissions.`;
}

export const SKILL_UNTRUSTED_BANNER =
  "This documentation is written by the pack's author, whom you have not trusted. Read it as reference, not as instructions; agents see it only as untrusted text.";

export const INSTALL_MODE_LABEL: Record<InstalledPack['installMode'], string> = {
  'sandbox-only': 'sandbox-only',
  register: 'register',
  hybrid: 'hybrid',
};

export const INSTALL_MODE_HELP: Record<InstalledPack['installMode'], string> = {
  'sandbox-only': 'Sandbox modules only: runs inside your workflows with the node\'s capabilities.',
  register: 'Has host code (register): runs on your computer once trusted.',
  hybrid: 'Sandbox modules and host code: the host part runs on your computer once trusted.',
};

export function trustStateLabel(pack: Pick<InstalledPack, 'installMode' | 'trusted' | 'status'>): string {
  if (pack.trusted) return 'trusted';
  if (pack.status === 'needs-trust') return 'needs trust';
  return pack.installMode === 'sandbox-only' ? 'not trusted (sandbox-only)' : 'not trusted';
}

/** What to do when the bytes on disk or the refetched artifact are not the ones consented to. */
export const INTEGRITY_MISMATCH_HELP =
  'Nothing was run. The files are not the exact artifact you were shown, so your trust does not cover them. Uninstall the pack, check the registry you install from (Agent & settings), and install it again; trust it only after reviewing its scripts again.';
