// Every pack we ship under packs/ passes `sandbox-packs check`, SKILL.md examples included: what
// the docs tell agents and people is run and its stated values compared — once as written, and
// once with every pack imported isolated (issue 31).
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

/**
 * SKILL.md examples that pass with every pack imported isolated, of each pack's examples (the
 * rest need an object with behaviour from the pack across the boundary; see the test). A change
 * here is a change in what isolation can run: say why in the commit.
 */
const ISOLATED_PASSING: Readonly<Record<string, number>> = {
  geo: 2,
  'sandbox-csv': 3,
  'sandbox-dates': 6,
  'sandbox-diff': 4,
  'sandbox-hash': 3,
  'sandbox-html': 1,
  'sandbox-markdown': 4,
  'sandbox-stats': 5,
  'sandbox-toml': 4,
  'sandbox-validation': 1,
  'sandbox-xml': 2,
  'sandbox-yaml': 4,
  'sandbox-zip': 4,
};

describe.concurrent('shipped packs pass check', () => {
  it('lists the packs we ship', () => {
    expect(dirs).toEqual([
      'geo',
      'sandbox-csv',
      'sandbox-dates',
      'sandbox-diff',
      'sandbox-hash',
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
        const result = await checkPack({ dir: path.join(PACKS, dir), isolateExamples: true });
        if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
        const report = result.value;
        expect(report.problems).toEqual([]);
        expect(report.installMode).toBe('sandbox-only');
        // The examples are real tests: every block ran, and values were compared.
        expect(report.examples?.every((e) => e.status === 'passed')).toBe(true);
        expect(report.examples?.reduce((sum, e) => sum + e.assertions, 0)).toBeGreaterThan(0);
        // Isolated (issue 31), each example gives the same stated values, or fails only because it
        // needs an object with behaviour from the pack (cheerio's $, new XMLParser(), a TomlDate's
        // methods, a regression line function), which data-only copies refuse by design.
        const isolated = report.isolatedExamples ?? [];
        expect(isolated.length).toBe(report.examples?.length);
        const behaviour =
          /cannot cross into or out of an isolated module: result(\.\S+)? is a function|cannot be used: the module runs isolated|not a function/;
        const otherFailures = isolated.flatMap((e) => e.failures).filter((f) => !behaviour.test(f.message));
        expect(otherFailures).toEqual([]);
        expect(isolated.filter((e) => e.status === 'passed').length).toBe(ISOLATED_PASSING[dir]);
        // A WASM module's exports are reported with their declared types (issue 32).
        if (dir === 'sandbox-hash') {
          const wasm = report.modules.find((m) => m.specifier === '@nodetool-ai/sandbox-hash/wasm');
          expect(wasm?.signatures).toContain('sha256(bytes) → string (async)');
          expect(wasm?.signatures).toContain('base64Decode(string) → bytes (async)');
        }
      },
      120_000,
    );
  }
});
