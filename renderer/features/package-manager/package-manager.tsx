// The Package Manager screen: the install field on top, then Installed / Available / Updates,
// and a pack's details (modules, SKILL.md) beside or below the lists.

import { useUiStore, type PackTab } from '../../state/ui-store.ts';
import { TabPanel, Tabs } from '../../ui/tabs.tsx';
import { AvailableList } from './available-list.tsx';
import { InstallPanel } from './install-panel.tsx';
import { InstalledList } from './installed-list.tsx';
import { PackDetails } from './pack-details.tsx';
import { UpdatesList } from './updates-list.tsx';

const TABS: { id: PackTab; label: string }[] = [
  { id: 'installed', label: 'Installed' },
  { id: 'available', label: 'Available' },
  { id: 'updates', label: 'Updates' },
];

export function PackageManager() {
  const tab = useUiStore((s) => s.packTab);
  const setTab = useUiStore((s) => s.setPackTab);
  const details = useUiStore((s) => s.detailsPack);
  return (
    <div className={details ? 'split' : ''}>
      <div>
        <InstallPanel />
        <section className="panel" aria-label="Packs">
          <Tabs label="Packs" tabs={TABS} active={tab} onChange={setTab} idPrefix="packs" />
          <TabPanel idPrefix="packs" id={tab}>
            {tab === 'installed' ? <InstalledList /> : tab === 'available' ? <AvailableList /> : <UpdatesList />}
          </TabPanel>
        </section>
      </div>
      {details && <PackDetails key={details} packName={details} />}
    </div>
  );
}
