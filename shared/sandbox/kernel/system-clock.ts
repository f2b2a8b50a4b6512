// The clock and timer a real host gives the kernel (KernelPowers.now / .timer). The kernel takes
// them as powers rather than reaching for globals, so a test can drive its deadline and a host
// can account for time its own way; the workers and the probe all use this one.

import type { Timer } from './job-loop.ts';

export const SYSTEM_CLOCK: { readonly now: () => number; readonly timer: Timer } = {
  now: () => performance.now(),
  timer: (ms, fire) => {
    const id = setTimeout(fire, ms);
    return () => clearTimeout(id);
  },
};
