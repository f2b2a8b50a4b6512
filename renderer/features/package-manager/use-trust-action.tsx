// "Trusted for agents": the user's decision for any pack (packs.decideUse), apart from the host-code
// consent of TrustAction. The line says why the pack is (not) trusted in pack-state.ts's words, so
// the card, Agent & settings and the CLI say the same thing; what the decision allows is said once
// above the list (USE_TRUST_ALLOWS).

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { trustForUse, USE_REASON_TEXT, useReason } from '../../../shared/contract/pack-state.ts';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { FailureText } from '../../ui/failure-text.tsx';

export function UseTrustNote({ pack }: { pack: InstalledPack }) {
  if (pack.installMode === 'register') return null;
  return <p className="small use-reason">{USE_REASON_TEXT[useReason(pack)]}</p>;
}

export function UseTrustAction({ pack }: { pack: InstalledPack }) {
  const decide = useContractMutation('packs.decideUse');
  const trusted = trustForUse(pack) === 'trusted';
  if (pack.installMode === 'register') return null;
  return (
    <>
      <button type="button" disabled={decide.isPending} onClick={() => decide.mutate({ name: pack.name, trusted: !trusted })}>
        {trusted ? `Revoke trust in ${pack.name} for agents` : `Trust ${pack.name} for agents`}
      </button>
      <FailureText error={decide.error} />
    </>
  );
}
