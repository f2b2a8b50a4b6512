// Every state a pack is shown in, derived from its packs.list row alone and worded once, so the
// Packages cards, Diagnostics, Agent & settings, SKILL.md banners, MCP and the CLI cannot disagree.
// Two decisions are kept apart: the setup state (host code and install scripts: consent to an
// exact artifact, which only register and hybrid packs need) and the use state (whether the user
// trusts the pack's modules for agents and its SKILL.md as documentation), which any pack has.

import type { InstalledPack } from './pack-schemas.ts';

export type SetupState = 'sandbox-only' | 'needs-trust' | 'trusted-and-built' | 'trust-failed';
export type Provenance = 'shipped' | 'registry' | 'unverified';
export type UseState = 'trusted' | 'untrusted';
export type UseReason = 'shipped' | 'host-trust' | 'granted' | 'revoked' | 'default';

type SetupFields = Pick<InstalledPack, 'installMode' | 'trusted' | 'status'>;
type UseFields = SetupFields & Pick<InstalledPack, 'shipped' | 'useDecision'>;

/** Host code and install scripts: sandbox-only (none to consent to), or consent then a setup that ran (or failed). */
export function setupState(pack: SetupFields): SetupState {
  if (pack.installMode === 'sandbox-only') return 'sandbox-only';
  if (pack.trusted && pack.status === 'active') return 'trusted-and-built';
  if (pack.trusted) return 'trust-failed';
  return 'needs-trust';
}

export const SETUP_STATE_LABEL: Record<SetupState, string> = {
  'sandbox-only': 'sandbox-only · active',
  'needs-trust': 'needs trust · inactive',
  'trusted-and-built': 'trusted · active',
  'trust-failed': 'setup failed · inactive',
};

/** Where the bytes came from: the app's own tarball, the registry, or a file or URL nobody vouches for. */
export function provenance(pack: Pick<InstalledPack, 'sourceLabel' | 'shipped'>): Provenance {
  if (pack.shipped) return 'shipped';
  return pack.sourceLabel === 'registry' ? 'registry' : 'unverified';
}

export const PROVENANCE_LABEL: Record<Provenance, string> = {
  shipped: 'shipped with the app',
  registry: 'registry',
  unverified: 'unverified source',
};

/**
 * Why the pack is (not) trusted for use: the user's own decision wins; without one, the packs the
 * app ships are trusted, and so is a pack whose host code the user trusted; any other is not.
 */
export function useReason(pack: UseFields): UseReason {
  if (pack.useDecision === 'trusted') return 'granted';
  if (pack.useDecision === 'untrusted') return 'revoked';
  if (pack.shipped) return 'shipped';
  if (pack.installMode !== 'sandbox-only' && pack.trusted) return 'host-trust';
  return 'default';
}

export function trustForUse(pack: UseFields): UseState {
  const reason = useReason(pack);
  return reason === 'revoked' || reason === 'default' ? 'untrusted' : 'trusted';
}

/** Trusted for use and active: its ready modules are on the agent's default allowlist. */
export function usableByDefault(pack: UseFields): boolean {
  return trustForUse(pack) === 'trusted' && pack.status === 'active';
}

/** The use state in words, as it applies now: an inactive pack is offered to nobody until it is active. */
export function useLabel(pack: UseFields): string {
  // A register pack has host code only: there is nothing to offer an agent, trusted or not.
  if (pack.installMode === 'register') return 'no modules for agents';
  if (trustForUse(pack) === 'untrusted') return 'not offered to agents';
  return pack.status === 'active' ? 'offered to agents' : 'offered to agents once active';
}

export const USE_REASON_TEXT: Record<UseReason, string> = {
  shipped: 'Shipped with the app, so trusted for agents until you revoke it.',
  'host-trust': 'You trusted its host code, so it is trusted for agents too until you revoke it.',
  granted: 'You trusted it for agents.',
  revoked: 'You revoked its trust for agents.',
  default: 'Not offered to agents until you trust it for them.',
};

/** What the use decision allows, said beside the button that changes it. */
export const USE_TRUST_ALLOWS =
  "Trusting a pack for agents puts its modules on the agent's default package allowlist and shows its SKILL.md as documentation from an author you trust. It runs nothing on your computer outside the sandbox, and it does not change which modules a Code node may import: that is the node's own declaration.";

/** The one line every text face (CLI `list`, Diagnostics) prints for a pack's states. */
export function stateWords(pack: UseFields & Pick<InstalledPack, 'sourceLabel'>): { setup: string; use: string; source: string } {
  return { setup: SETUP_STATE_LABEL[setupState(pack)], use: useLabel(pack), source: PROVENANCE_LABEL[provenance(pack)] };
}
