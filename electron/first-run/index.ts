// The first-run entry the app's faces call (Electron main, `serve`, `sandbox-packs first-run`):
// the seeding in first-run.ts with the shipped tarballs of the layout we run in.

import type { Result } from '../../shared/protocol/result.ts';
import { runFirstRun, type FirstRunReport } from './first-run.ts';
import { shippedTarball } from './shipped-tarballs.ts';

export { EXAMPLE, EXAMPLE_CODE, EXAMPLE_WORKFLOW, FIRST_RUN_FILE, type FirstRunReport } from './first-run.ts';

export function seedDataDir(dataDir: string, options: { registry?: string; onProgress?: (message: string) => void } = {}): Promise<Result<FirstRunReport>> {
  return runFirstRun({ dataDir, tarball: shippedTarball, ...options });
}
