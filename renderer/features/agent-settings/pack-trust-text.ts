// The trust wording beside each module in the agent's allowlist. It is the Package Manager's own
// trust-state label (consent-text.ts), so a pack whose setup failed reads "setup failed" here too,
// never "trusted" — the two screens cannot disagree about one packs.list row.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { trustStateLabel } from '../consent/consent-text.ts';

export function packTrustText(packs: readonly InstalledPack[], packName: string): string {
  const pack = packs.find((p) => p.name === packName);
  return pack ? trustStateLabel(pack) : 'pack not installed';
}
