// The first-run entry the app's faces call (Electron main, `serve`, `sandbox-packs first-run`):
// the seeding in first-run.ts with the shipped tarballs of the layout we run in.

import type { Result } from '../../shared/protocol/result.ts';
import { runFirstRun, type FirstRunReport } from './first-run.ts';
import { shippedPrecompiled, shippedTarball } from './shipped-tarballs.ts';

export { EXAMPLE, EXAMPLE_CODE, EXAMPLE_WORKFLOW, FIRST_RUN_FILE, type FirstRunReport } from './first-run.ts';

/** A failed first run does not stop the app: it says why and tries again on the next start. */
export async function reportFirstRun(result: Result<FirstRunReport>, err: (text: string) => void): Promise<void> {
  if (!result.ok) err(`The shipped packs could not be set up (${result.code}): ${result.message} The app starts without them; the next start tries again.`);
}

export function seedDataDir(dataDir: string, options: { registry?: string; onProgress?: (message: string) => void } = {}): Promise<Result<FirstRunReport>> {
  return runFirstRun({ dataDir, tarball: shippedTarball, precompiled: shippedPrecompiled, ...options });
}
