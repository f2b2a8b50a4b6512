// Whether the first start's seeding of the shipped packs is running, as the last
// `first-run-progress` event said (FirstRunStatus feeds it). Until it is over, a pack listed with
// no modules is being installed, not a host-code pack: the Packages screens ask here to say so.

import { create } from 'zustand';

export interface SeedingState {
  readonly running: boolean;
  setRunning(running: boolean): void;
}

export const useSeedingStore = create<SeedingState>((set) => ({
  running: false,
  setRunning: (running) => set((s) => (s.running === running ? s : { running })),
}));

/** What a pack's module list says while the shipped packs are being installed. */
export const SEEDING_MODULES_TEXT = 'Installing… The app is setting up the packs it comes with; the modules show here once that is done.';
