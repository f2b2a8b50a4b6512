// The Package Manager screen: the install field on top, then Installed / Available / Updates,
// and a pack's details (modules, SKILL.md) beside or below the lists.

import { useUiStore, type PackTab } from '../../state/ui-store.ts';
import { TabPanel, Tabs } from '../../ui/tabs.tsx';
import { AvailableList } from './available-list.tsx';
import { InstallPanel } from './install-panel.tsx';
import { InstalledList } from './installed-list.tsx';
import { PackDetails } from './pack-details.tsx';
import { UpdatesList, useUpdateCount } from './updates-list.tsx';

export function PackageManager() {
  const tab = useUiStore((s) => s.packTab);
  const setTab = useUiStore((s) => s.setPackTab);
  const details = useUiStore((s) => s.detailsPack);
  const updates = useUpdateCount();
  // The count of newer versions on the registry rides on the tab, so it is seen from any tab.
  const tabs: { id: PackTab; label: string }[] = [
    { id: 'installed', label: 'Installed' },
    { id: 'available', label: 'Available' },
    { id: 'updates', label: updates ? `Updates (${updates})` : 'Updates' },
  ];
  return (
    <div className={details ? 'split' : ''}>
      <div>
        <InstallPanel />
        <section className="panel" aria-label="Packs">
          <Tabs label="Packs" tabs={tabs} active={tab} onChange={setTab} idPrefix="packs" />
          <TabPanel idPrefix="packs" id={tab}>
            {tab === 'installed' ? <InstalledList /> : tab === 'available' ? <AvailableList /> : <UpdatesList />}
          </TabPanel>
        </section>
      </div>
      {details && <PackDetails key={details} packName={details} />}
    </div>
  );
}
