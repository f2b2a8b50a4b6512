// UI state only: which screen and tab is showing, which pack's details are open, which workflow
// the editor holds. Everything that comes from main lives in react-query, never here, so a
// `catalog-changed` event can refresh it without this store going stale.

import { create } from 'zustand';

export type View = 'packages' | 'workflows' | 'agent' | 'diagnostics' | 'secrets';
export type PackTab = 'installed' | 'available' | 'updates';

export interface UiState {
  readonly view: View;
  readonly packTab: PackTab;
  /** The pack whose details (modules, SKILL.md) are open, if any. */
  readonly detailsPack: string | undefined;
  setView(view: View): void;
  setPackTab(tab: PackTab): void;
  openDetails(packName: string | undefined): void;
}

export const useUiStore = create<UiState>((set) => ({
  view: 'packages',
  packTab: 'installed',
  detailsPack: undefined,
  setView: (view) => set({ view }),
  setPackTab: (packTab) => set({ packTab }),
  openDetails: (detailsPack) => set({ detailsPack }),
}));
