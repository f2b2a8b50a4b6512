// Every pack we ship under packs/ passes `sandbox-packs check`, SKILL.md examples included: what
// the docs tell agents and people is run and its stated values compared.
//
// The packs' npm dependencies come from npm's public registry, as for an author (so this needs the
// network, like `npm ci`). The checks run concurrently (vitest: up to 5 at once): about 30 s on
// 2 shared cores, measured once (a noisy figure).

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkPack } from './pack-check.ts';

const PACKS = fileURLToPath(new URL('../../packs/', import.meta.url));
const dirs = (await readdir(PACKS, { withFileTypes: true }))
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe.concurrent('shipped packs pass check', () => {
  it('lists the packs we ship', () => {
    expect(dirs).toEqual([
      'geo',
      'sandbox-csv',
      'sandbox-dates',
      'sandbox-diff',
      'sandbox-html',
      'sandbox-markdown',
      'sandbox-stats',
      'sandbox-toml',
      'sandbox-validation',
      'sandbox-xml',
      'sandbox-yaml',
      'sandbox-zip',
    ]);
  });

  for (const dir of dirs) {
    it(
      dir,
      async () => {
        const result = await checkPack({ dir: path.join(PACKS, dir) });
        if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
        const report = result.value;
        expect(report.problems).toEqual([]);
        expect(report.installMode).toBe('sandbox-only');
        // The examples are real tests: every block ran, and values were compared.
        expect(report.examples?.every((e) => e.status === 'passed')).toBe(true);
        expect(report.examples?.reduce((sum, e) => sum + e.assertions, 0)).toBeGreaterThan(0);
      },
      120_000,
    );
  }
});
