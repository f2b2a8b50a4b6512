// The first-run entry the app's faces call (Electron main, `serve`, `sandbox-packs first-run`):
// the seeding in first-run.ts with the shipped tarballs and precompiled cache of the layout we run
// in — in the foreground for the CLI command, behind the open window/address for the app faces.

import type { Result } from '../../shared/protocol/result.ts';
import { SHIPPED_PACKS } from '../platform/assets.ts';
import { seedInBackground, type BackgroundSeeding, type SeedingServices } from './background.ts';
import { firstRunNeeded, runFirstRun, type FirstRunReport } from './first-run.ts';
import { shippedPrecompiled, shippedTarball } from './shipped-tarballs.ts';

export { EXAMPLE, EXAMPLE_CODE, EXAMPLE_WORKFLOW, FIRST_RUN_FILE, type FirstRunReport } from './first-run.ts';
export type { BackgroundSeeding } from './background.ts';

/** A failed first run does not stop the app: it says why and tries again on the next start. */
export async function reportFirstRun(result: Result<FirstRunReport>, err: (text: string) => void): Promise<void> {
  if (!result.ok) err(`The shipped packs could not be set up (${result.code}): ${result.message} The app starts without them; the next start tries again.`);
}

export function seedDataDir(dataDir: string, options: { registry?: string; onProgress?: (message: string) => void } = {}): Promise<Result<FirstRunReport>> {
  return runFirstRun({ dataDir, tarball: shippedTarball, precompiled: shippedPrecompiled, ...options });
}

/**
 * Starts seeding `dataDir` behind already running app services, when it needs it (undefined when
 * it does not: the check is one small file read). Until it is over the services' catalog answers
 * `busy` for the packs being seeded.
 */
export async function seedDataDirInBackground(
  dataDir: string,
  services: SeedingServices,
  onMessage?: (text: string, state: 'running' | 'done' | 'failed') => void,
): Promise<BackgroundSeeding | undefined> {
  if (!(await firstRunNeeded(dataDir))) return undefined;
  return seedInBackground({
    services,
    packNames: SHIPPED_PACKS.map((pack) => pack.name),
    seed: (onProgress) => seedDataDir(dataDir, { onProgress }),
    ...(onMessage ? { onMessage } : {}),
  });
}
