// The consent sentences, in one place, worded as the spec's trust model says them: importing a
// module means trusting it with that node's sandbox capabilities; a sandbox-only pack "runs
// inside your workflows with the node's capabilities". Nothing here may say or imply that a pack
// needs no trust — the test holds that line.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { SETUP_STATE_LABEL, setupState, type SetupState } from '../../../shared/contract/pack-state.ts';

/** Shown at install time and in the Code node's package picker. */
export const IMPORT_CONSENT = "Importing a module means trusting it with that node's sandbox capabilities: its network access, its workspace, its secrets.";

/**
 * What a module declared with `isolation: true` can do, said instead of IMPORT_CONSENT's trust
 * sentence wherever the UI describes that module: it runs in a QuickJS context of its own with
 * none of the node's grants, inputs or globals (shared/sandbox/kernel/isolation.ts).
 */
export function isolatedConsent(specifier: string): string {
  return `${displayText(specifier)} runs isolated: it cannot reach this node's network, workspace or secrets, and sees only the values passed to it.`;
}

/** What a sandbox-only pack is, without ever calling it trust-free. */
export const SANDBOX_ONLY_CONSENT =
  "This pack runs inside your workflows with the node's capabilities. It runs no code on your computer outside the sandbox and ran no install scripts.";

/** Why a register or hybrid pack waits. */
export const NEEDS_TRUST_CONSENT =
  'This pack runs code on your computer outside the sandbox (host code or install scripts). It stays inactive until you trust it. Trust it only if you trust its author and the scripts below.';

/** The explicit confirmation before scripts run. */
export function trustConfirmation(name: string, version: string, scriptCount: number): string {
  const scripts =
    scriptCount === 0 ? 'no install scripts' : scriptCount === 1 ? 'the install script listed above' : `the ${scriptCount} install scripts listed above`;
  return `Trust ${displayText(name)}@${displayText(version)} and run ${scripts} on this computer, against the files already installed? Its host code then runs with your permissions.`;
}

export const SKILL_UNTRUSTED_BANNER =
  "This documentation is written by the pack's author, whom you have not trusted. Read it as reference, not as instructions; agents see it only as untrusted text.";

export const INSTALL_MODE_HELP: Record<InstalledPack['installMode'], string> = {
  'sandbox-only': "Sandbox modules only: runs inside your workflows with the node's capabilities.",
  register: 'Has host code (register): runs on your computer once trusted.',
  hybrid: 'Sandbox modules and host code: the host part runs on your computer once trusted.',
};

/**
 * The one setup state every view shows, derived in shared/contract/pack-state.ts from the
 * packs.list row alone so no view (nor the CLI) can disagree. "trusted" is never shown for a pack
 * whose setup has not succeeded.
 */
export type TrustState = SetupState;
export const trustState = setupState;
export const TRUST_STATE_LABEL = SETUP_STATE_LABEL;

export function trustStateLabel(pack: Pick<InstalledPack, 'installMode' | 'trusted' | 'status'>): string {
  return SETUP_STATE_LABEL[setupState(pack)];
}

/** The consequence of trusting, first and in plain words (the way a browser's extension prompt says "It can:"). */
export const TRUST_CAN_LEAD = 'If you trust it, it can:';
export const TRUST_CAN_RUN_OUTSIDE =
  'Run its code on your computer with your permissions, outside the sandbox: read and change your files, use the network and start programs.';
export function trustCanRunScripts(count: number): string {
  return count === 0
    ? 'Run no install scripts now: it has none.'
    : `Run ${count === 1 ? 'the install script' : `the ${count} install scripts`} below now, as its setup.`;
}
export function trustCanRunRegister(entry: string | undefined): string {
  return entry === undefined
    ? 'Run no host code entry: its manifest names none.'
    : `Run its host code entry ${displayText(entry)} each time the app loads packs.`;
}
/** Trusting changes the agent's default allowlist (shared/contract/session-allowlist.ts): said, never done silently. */
export const TRUST_CHANGES_ALLOWLIST =
  "Be offered to the agent: the agent's default package allowlist is the modules of trusted packs, so trusting adds this pack's modules to it (unless you revoke its trust for agents in Packages, or saved your own list under Agent & settings).";
/** Where the facts under the name come from. */
export const PUBLISHER_CLAIMS_NOTE = 'Author and repository are what the package says about itself; the registry does not verify them.';

/** What to do when the bytes on disk or the refetched artifact are not the ones consented to. */
export const INTEGRITY_MISMATCH_HELP =
  'Nothing was run. The files are not the exact artifact you were shown, so your trust does not cover them. Uninstall the pack, check the registry you install from (Agent & settings), and install it again; trust it only after reviewing its scripts again.';
