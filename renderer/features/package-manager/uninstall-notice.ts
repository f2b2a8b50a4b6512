// The pack an uninstall was confirmed for, kept outside the card: the card (and the call's own
// callbacks with it) is gone as soon as catalog-changed refreshes the list, so the Installed tab
// reads this to show "Uninstalled X." and put focus there. A failed uninstall leaves the pack in
// the list, so the notice never shows for it.

import { create } from 'zustand';

export const useUninstallNotice = create<{ readonly removing: string | undefined; set(name: string | undefined): void }>((set) => ({
  removing: undefined,
  set: (removing) => set({ removing }),
}));
