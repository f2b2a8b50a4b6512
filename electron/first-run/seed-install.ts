// Installs every shipped tarball in ONE npm run: npm's fixed start-up cost (≈1 s here) times six
// packs was most of a first run, and seeding is the one caller that knows all its tarballs up
// front (our own, with their dependencies bundled inside). What the ledger may record is decided
// by the installer's own pipeline (install/install-pipeline.ts), the same as for any install, and
// it records the packs once, at the end, so a killed first run never records a half pack; it runs
// under the root lock with a journal like every install (install/locked-run.ts), which lets the
// next start roll back what npm left unrecorded.

import type { ChildProcess } from 'node:child_process';
import { ok, type Result } from '../../shared/protocol/result.ts';
import { installMany, type InstallTarget } from '../install/install-pipeline.ts';
import { runLocked } from '../install/locked-run.ts';
import { parseSpec } from '../install/spec.ts';

export interface SeedTarball {
  /** The pack the tarball must hold (a shipped pack). */
  readonly pack: { readonly name: string };
  readonly file: string;
}

export interface SeedInstallOptions {
  readonly root: string;
  /** Remembered in a fresh ledger; npm never contacts it for a local tarball with bundled deps. */
  readonly registry?: string;
  readonly tarballs: readonly SeedTarball[];
  /** Sees each npm child as it starts (tests count the runs). */
  readonly onNpmSpawn?: (child: ChildProcess) => void;
  /** How long to wait for another operation on the root before answering `busy`. */
  readonly lockWaitMs?: number;
}

/** Installs the tarballs with one npm run and records each pack; answers the names recorded. */
export async function installShippedTarballs(options: SeedInstallOptions): Promise<Result<string[]>> {
  const { root, tarballs } = options;
  if (tarballs.length === 0) return ok([]);
  return runLocked(
    {
      root,
      ...(options.registry ? { registry: options.registry } : {}),
      lockWaitMs: options.lockWaitMs ?? 30_000,
      ...(options.onNpmSpawn ? { onNpmSpawn: options.onNpmSpawn } : {}),
    },
    { operation: 'first-run', target: 'the shipped packs', progress: () => {} },
    async (ctx, ledger) => {
      const targets: InstallTarget[] = [];
      for (const { pack, file } of tarballs) {
        const parsed = parseSpec(file, root);
        if (!parsed.ok) return parsed;
        targets.push({ parsed: parsed.value, expectName: pack.name });
      }
      const recorded = await installMany(ctx, ledger, targets, { what: 'installing the shipped packs' });
      return recorded.ok ? ok(recorded.value.map((record) => record.name)) : recorded;
    },
  );
}
