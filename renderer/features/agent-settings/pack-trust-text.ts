// The trust wording beside each module in the agent's allowlist: the pack's use state (trusted for
// agents or not), then its setup state, in the Package Manager's own chip words
// (shared/contract/pack-state.ts), so a pack whose setup failed reads "setup failed" here too,
// never "trusted" — the two screens cannot disagree about one packs.list row.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { stateWords } from '../../../shared/contract/pack-state.ts';

export function packTrustText(packs: readonly InstalledPack[], packName: string): string {
  const pack = packs.find((p) => p.name === packName);
  if (!pack) return 'pack not installed';
  const words = stateWords(pack);
  return `${words.use}; ${words.setup}`;
}
