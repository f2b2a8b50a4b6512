// One installed pack: version, install-mode chip, trust state, source label and status, its
// modules with ready/skipped and reasons, and the actions that apply to it.

import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { Chip } from '../../ui/chip.tsx';
import { INSTALL_MODE_HELP, trustStateLabel } from '../consent/consent-text.ts';
import { TrustAction } from '../consent/trust-action.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { ModuleRows } from './module-rows.tsx';
import { UninstallAction } from './uninstall-action.tsx';
import { UpdateAction } from './update-action.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';

const STATUS_LABEL: Record<InstalledPack['status'], string> = { active: 'active', 'needs-trust': 'inactive: needs trust', 'needs-rebuild': 'inactive: needs rebuild' };

export function PackCard({ pack, modules, latest }: { pack: InstalledPack; modules: readonly ModuleSummary[]; latest?: string | undefined }) {
  const openDetails = useUiStore((s) => s.openDetails);
  const detailsPack = useUiStore((s) => s.detailsPack);
  return (
    <article className="card" aria-labelledby={`pack-${pack.name}`}>
      <header className="card-head">
        <h3 id={`pack-${pack.name}`}>
          {displayText(pack.name)} <span className="version">{displayText(pack.version)}</span>
        </h3>
        <div className="chips">
          <Chip tone="info" title={INSTALL_MODE_HELP[pack.installMode]}>
            {pack.installMode}
          </Chip>
          <Chip tone={pack.trusted ? 'good' : pack.status === 'needs-trust' ? 'warn' : 'neutral'}>{trustStateLabel(pack)}</Chip>
          <Chip tone={pack.sourceLabel === 'registry' ? 'neutral' : 'warn'}>{pack.sourceLabel}</Chip>
          <Chip tone={pack.status === 'active' ? 'good' : 'warn'}>{STATUS_LABEL[pack.status]}</Chip>
        </div>
      </header>
      <p className="muted small">{INSTALL_MODE_HELP[pack.installMode]}</p>
      <ModuleRows modules={modules} emptyText={pack.status !== 'active' && pack.installMode !== 'register' ? 'Its sandbox modules are not loaded while the pack is inactive.' : undefined} />
      <div className="actions">
        <button type="button" onClick={() => openDetails(pack.name)}>
          Details
        </button>
        {(pack.status === 'needs-trust' || pack.trusted) && <TrustAction pack={pack} />}
        <UpdateAction pack={pack} latest={latest} />
        <UninstallAction name={pack.name} onDone={() => detailsPack === pack.name && openDetails(undefined)} />
      </div>
    </article>
  );
}
