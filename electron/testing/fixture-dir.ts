// Test support: the kernel contract fixture directory, read at run time — every
// `fixtures/kernel/*.json` file is one fixture file. The worker-pool contract test
// (electron/runtime/sandbox/fixture-dir.contract.test.ts), the Chromium parity and endings suites
// and the browser bench enumerate it through here, so a file added to the directory runs through
// the Node pool and in Chromium without any other change. (The in-thread kernel tests import the
// JSON files they need by name.)

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { FixtureFileSchema, type FixtureFile } from '../../shared/testing/kernel-fixture.ts';

export const KERNEL_FIXTURE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/kernel');

/** File name → parsed fixture file, in name order. A malformed file is a broken test setup: thrown. */
export function loadFixtureDir(dir: string = KERNEL_FIXTURE_DIR): Map<string, FixtureFile> {
  const files = new Map<string, FixtureFile>();
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const parsed = FixtureFileSchema.safeParse(JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as unknown);
    if (!parsed.success) throw new Error(`${name}: ${formatIssues(parsed.error.issues)}`);
    files.set(name, parsed.data);
  }
  return files;
}
