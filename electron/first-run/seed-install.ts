// Installs every shipped tarball in ONE npm run. The installer (electron/install/installer.ts)
// installs one spec per npm run, and npm's fixed start-up cost (≈1 s here) times six packs was
// most of a first run. Seeding is the one caller that knows all its tarballs up front, and they are
// our own, with their dependencies bundled inside, so one run is enough.
//
// Everything after npm is what the installer does for each pack, from the same building blocks
// (inspect.ts, the lockfile, the ledger): the installed package.json is read and classified, the
// closure is inspected from the exact files on disk, and a pack is recorded only after all of that
// passed — the ledger is written once, at the end, so a killed first run never records a half
// pack (the journal it runs with lets the next start roll back what npm left unrecorded). npm runs
// with scripts off and under the root lock, like every install (install/locked-run.ts).

import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { SOURCE_LABELS, type Ledger, type PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { classify, inspectClosure, readInstalledPackageJson } from '../install/inspect.ts';
import { writeLedger } from '../install/ledger-store.ts';
import { runLocked } from '../install/locked-run.ts';
import { readLockfile, readRootPackageJson } from '../install/npm-root.ts';
import { npmFailure, npmInstall, npmUninstall, type OpContext } from '../install/root-ops.ts';
import { syncScriptPolicy } from '../install/script-policy.ts';
import { parseSpec, type ParsedSpec } from '../install/spec.ts';
import type { ShippedPack } from '../platform/assets.ts';

export interface SeedTarball {
  readonly pack: ShippedPack;
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

/** The dependency npm saved for a tarball: `file:<path relative to the root>`. */
function savedFor(deps: Readonly<Record<string, string>>, root: string, file: string): string | undefined {
  const wanted = path.resolve(file);
  return Object.keys(deps).find((name) => {
    const spec = deps[name] ?? '';
    return spec.startsWith('file:') && path.resolve(root, spec.slice('file:'.length)) === wanted;
  });
}

/** Installs the tarballs with one npm run and records each pack; answers the names recorded. */
export async function installShippedTarballs(options: SeedInstallOptions): Promise<Result<string[]>> {
  const { root, tarballs } = options;
  if (tarballs.length === 0) return ok([]);
  // Like every install: under the lock, after repairs, with a journal, so a killed first run is rolled back.
  return runLocked(
    {
      root,
      ...(options.registry ? { registry: options.registry } : {}),
      lockWaitMs: options.lockWaitMs ?? 30_000,
      ...(options.onNpmSpawn ? { onNpmSpawn: options.onNpmSpawn } : {}),
    },
    { operation: 'first-run', target: 'the shipped packs', progress: () => {} },
    (ctx, ledger) => installLocked(ctx, ledger, tarballs),
  );
}

async function installLocked(ctx: OpContext, ledger: Ledger, tarballs: readonly SeedTarball[]): Promise<Result<string[]>> {
  const { root } = ctx;
  const specs: ParsedSpec[] = [];
  for (const tarball of tarballs) {
    const parsed = parseSpec(tarball.file, root);
    if (!parsed.ok) return parsed;
    specs.push(parsed.value);
  }
  const before = await readRootPackageJson(root);
  if (!before.ok) return before;
  const run = await npmInstall(
    ctx,
    specs.map((s) => s.npmArg),
  );
  if (run.code !== 0) return npmFailure(run, 'installing the shipped packs');

  const after = await readRootPackageJson(root);
  if (!after.ok) return after;
  const beforeDeps = before.value.dependencies ?? {};
  const afterDeps = after.value.dependencies ?? {};
  const undo = async (): Promise<void> => {
    const added = Object.keys(afterDeps).filter((dep) => !(dep in beforeDeps));
    const replaced = Object.keys(afterDeps).filter((dep) => dep in beforeDeps && beforeDeps[dep] !== afterDeps[dep]);
    if (added.length > 0) await npmUninstall(ctx, added);
    if (replaced.length > 0)
      await npmInstall(
        ctx,
        replaced.map((dep) => `${dep}@${beforeDeps[dep] as string}`),
      );
  };
  const lockfile = await readLockfile(root);
  if (!lockfile.ok || !lockfile.value) {
    await undo();
    return lockfile.ok ? fail('install-failed', 'npm finished but wrote no lockfile.') : lockfile;
  }
  const lockValue = lockfile.value;
  const installedAt = new Date().toISOString();
  const recorded = await Promise.all(
    tarballs.map(async ({ pack, file }, i): Promise<Result<PackRecord>> => {
      const saved = savedFor(afterDeps, root, file);
      if (saved !== pack.name) return fail('install-failed', `The bundled tarball for ${pack.name} holds ${saved ?? 'no package npm recorded'}.`);
      const pkg = await readInstalledPackageJson(root, `node_modules/${pack.name}`);
      if (!pkg.ok) return pkg;
      if (pkg.value.name !== pack.name)
        return fail('install-failed', `The bundled tarball for ${pack.name} calls itself ${pkg.value.name} in its package.json.`);
      const kind = classify(pkg.value, `node_modules/${pack.name}/package.json`);
      if (!kind.ok) return kind;
      const inspected = await inspectClosure(root, lockValue, pack.name);
      if (!inspected.ok) return inspected;
      const self = inspected.value.closure[0];
      if (!self?.integrity || !self.resolved)
        return fail('install-failed', `The lockfile has no resolved path and integrity for ${pack.name}, so the artifact cannot be pinned.`);
      return ok({
        name: pack.name,
        version: pkg.value.version,
        spec: (specs[i] as ParsedSpec).spec,
        resolved: self.resolved,
        integrity: self.integrity,
        installMode: kind.value.mode,
        installedAt,
        source: 'tarball-file',
        sourceLabel: SOURCE_LABELS['tarball-file'],
        scripts: inspected.value.scripts,
        closure: inspected.value.closure,
        trust: null,
        // Like any install: only a sandbox-only pack is active without consent.
        status: kind.value.mode === 'sandbox-only' ? 'active' : 'needs-trust',
      });
    }),
  );
  const failed = recorded.find((r) => !r.ok);
  if (failed && !failed.ok) {
    await undo();
    return failed;
  }
  const packs = { ...ledger.packs };
  for (const record of recorded) if (record.ok) packs[record.value.name] = record.value;
  const next: Ledger = { ...ledger, packs };
  await writeLedger(root, next);
  const policy = await syncScriptPolicy(root, next);
  if (!policy.ok) return policy;
  return ok(recorded.flatMap((r) => (r.ok ? [r.value.name] : [])));
}
