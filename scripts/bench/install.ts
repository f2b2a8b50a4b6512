// Bench section `install`: what our installer costs on top of npm itself. Both sides install the
// same sandbox-only pack (with one dependency) from the same local Verdaccio into fresh
// directories with fresh npm caches, scripts off: ours adds spec parsing, the root lock, reading
// the installed artifact, hashing the closure and writing the ledger. Goal: ≤ 1.2×.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInstaller } from '../../electron/install/installer.ts';
import { runNpm } from '../../electron/install/npm-runner.ts';
import { startRegistry } from '../../electron/testing/verdaccio.ts';
import { measure, printRatio, printTable, type BenchSection, type Stats } from './harness.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const PACK = '@sp-fixture/sandbox-with-dep';

export const installSection: BenchSection = {
  name: 'install',
  async run() {
    const registry = await startRegistry({ uplink: false });
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-install-'));
    try {
      await registry.publish(path.join(FIXTURES, 'script-dep-1.0.0'));
      await registry.publish(path.join(FIXTURES, 'sandbox-with-dep-1.0.0'));
      const emptyrc = path.join(scratch, 'empty-npmrc');
      await writeFile(emptyrc, '');
      let n = 0;
      const fresh = async () => mkdtemp(path.join(scratch, `r${n++}-`));

      const installOurs = async () => {
        const root = await fresh();
        const result = await createInstaller({ root, registry: registry.url }).install(PACK);
        if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
      };
      const installBare = async () => {
        const dir = await fresh();
        await writeFile(path.join(dir, 'package.json'), '{"name":"bench-root","private":true}');
        const run = await runNpm(
          [
            'install',
            PACK,
            '--ignore-scripts',
            '--registry',
            registry.url,
            '--userconfig',
            emptyrc,
            '--cache',
            path.join(dir, '.npm-cache'),
            '--audit=false',
            '--fund=false',
            '--save-exact',
          ],
          { cwd: dir },
        );
        if (run.code !== 0) throw new Error(run.stderr);
      };
      // Interleaved single runs, so load from the shared machine hits both sides alike.
      const oursRuns: Stats[] = [];
      const bareRuns: Stats[] = [];
      await installOurs();
      await installBare();
      for (let i = 0; i < 6; i++) {
        oursRuns.push(await measure('ours', 1, installOurs, 0));
        bareRuns.push(await measure('bare', 1, installBare, 0));
      }
      const ours = combine('installer.install (sandbox-only pack + 1 dep)', oursRuns);
      const bare = combine('npm install --ignore-scripts (same pack)', bareRuns);
      printTable('install — local Verdaccio, fresh root and npm cache per run', [ours, bare]);
      printRatio('installer / bare npm', ours, bare, '≤ 1.2×');
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await registry.stop();
    }
  },
};

function combine(label: string, runs: readonly Stats[]): Stats {
  const samples = runs.map((r) => r.medianMs).sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { label, runs: samples.length, minMs: samples[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}
