// One installed pack: version, its own description, ONE setup-state chip (sandbox-only, needs
// trust, trusted, setup failed) and ONE use-state chip (offered to agents or not), both derived in
// shared/contract/pack-state.ts from the packs.list row so no two views can disagree; the source,
// its modules with ready/skipped and reasons, a failed setup's npm lines, and the actions that
// apply. Buttons name their pack, since a screen reader lists many cards' buttons together.
// Update shows only when the registry has a newer version.

import type { InstalledPack, UpdateCheck } from '../../../shared/contract/pack-schemas.ts';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { Chip, type Tone } from '../../ui/chip.tsx';
import { INSTALL_MODE_HELP, trustState, trustStateLabel, type TrustState } from '../consent/consent-text.ts';
import { SetupFailure, TrustAction } from '../consent/trust-action.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { ModuleRows } from './module-rows.tsx';
import { SEEDING_MODULES_TEXT, useSeedingStore } from '../first-run/seeding-store.ts';
import { UninstallAction } from './uninstall-action.tsx';
import { TarballUpdateNote, UpdateAction } from './update-action.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { PROVENANCE_LABEL, provenance, usableByDefault, useLabel, type Provenance } from '../../../shared/contract/pack-state.ts';
import { UseTrustAction, UseTrustNote } from './use-trust-action.tsx';

const STATE_TONE: Record<TrustState, Tone> = { 'sandbox-only': 'info', 'needs-trust': 'warn', 'trusted-and-built': 'good', 'trust-failed': 'bad' };

const PROVENANCE_TONE: Record<Provenance, Tone> = { shipped: 'neutral', registry: 'neutral', unverified: 'warn' };

/** Where the bytes came from, in pack-state.ts's words (the CLI and Diagnostics print the same). */
export function sourceChip(pack: Pick<InstalledPack, 'sourceLabel' | 'shipped'>): { label: string; tone: Tone } {
  const where = provenance(pack);
  return { label: PROVENANCE_LABEL[where], tone: PROVENANCE_TONE[where] };
}

export function PackCard({ pack, modules, update }: { pack: InstalledPack; modules: readonly ModuleSummary[]; update?: UpdateCheck | undefined }) {
  const openDetails = useUiStore((s) => s.openDetails);
  const detailsPack = useUiStore((s) => s.detailsPack);
  const seeding = useSeedingStore((s) => s.running);
  const state = trustState(pack);
  const source = sourceChip(pack);
  return (
    <article className="card" aria-labelledby={`pack-${pack.name}`} data-pack={pack.name}>
      <header className="card-head">
        <h3 id={`pack-${pack.name}`}>
          {displayText(pack.name)} <span className="version">{displayText(pack.version)}</span>
        </h3>
        <div className="chips">
          {pack.installMode !== 'sandbox-only' && (
            <Chip tone="info" title={INSTALL_MODE_HELP[pack.installMode]}>
              {pack.installMode}
            </Chip>
          )}
          <Chip tone={STATE_TONE[state]} title={INSTALL_MODE_HELP[pack.installMode]}>
            {trustStateLabel(pack)}
          </Chip>
          <Chip tone={source.tone}>{source.label}</Chip>
          <Chip tone={usableByDefault(pack) ? 'good' : 'neutral'}>{useLabel(pack)}</Chip>
          {update?.state === 'update' && update.latest && <Chip tone="info">{`${displayText(update.latest)} available`}</Chip>}
        </div>
      </header>
      {/* Without its own description (or its files), the mode's help line below says what it is. */}
      {(pack.description !== undefined || pack.installMode === 'sandbox-only') && (
        <p className="pack-description">{displayText(pack.description ?? INSTALL_MODE_HELP[pack.installMode])}</p>
      )}
      {pack.installMode !== 'sandbox-only' && <p className="muted small">{INSTALL_MODE_HELP[pack.installMode]}</p>}
      <UseTrustNote pack={pack} />
      {state === 'trust-failed' && <SetupFailure pack={pack} />}
      <ModuleRows
        modules={modules}
        emptyText={
          pack.installMode === 'register'
            ? undefined
            : pack.status !== 'active'
              ? 'Its sandbox modules are not loaded while the pack is inactive; Details lists them.'
              : seeding
                ? SEEDING_MODULES_TEXT
                : 'Its sandbox modules are not loaded; Diagnostics says why.'
        }
      />
      <div className="actions">
        <button type="button" onClick={() => openDetails(pack.name)} aria-expanded={detailsPack === pack.name}>
          Details of {pack.name}
        </button>
        {/* Mounted for every pack, so an open dialog survives the pack changing under it (and says so). */}
        <TrustAction pack={pack} />
        <UseTrustAction pack={pack} />
        <UpdateAction pack={pack} check={update} />
        {update?.state === 'tarball' && <TarballUpdateNote pack={pack} />}
        <UninstallAction
          name={pack.name}
          onDone={() => {
            if (detailsPack === pack.name) openDetails(undefined);
          }}
        />
      </div>
    </article>
  );
}
