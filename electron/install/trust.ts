// Running a trusted pack's lifecycle scripts. Consent is keyed to (name, version, integrity), and
// scripts run only against that artifact: first the files on disk are checked against the
// digests taken at install; if they are missing or changed, the tarballs are fetched again from
// the lockfile's resolved URLs and must match the recorded integrity before npm restores them and
// before any script runs. Only then does `npm rebuild` run, limited to the named name@version
// targets and to an allowScripts policy that allows exactly those, each in the key form npm
// matches for its source (script-policy.ts; strict: anything unreviewed is an error, not a warning).

import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { trustCovers, type ClosureEntry, type Ledger, type PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { readInstalledPackageJson, treeDigest } from './inspect.ts';
import { writeLedger } from './ledger-store.ts';
import { readLockfile } from './npm-root.ts';
import { verifyRefetch } from './refetch.ts';
import { npm, npmErrorLines, npmFailure, npmInstall, syncScriptPolicy, type OpContext } from './root-ops.ts';
import { outcomeOf, type InstallOutcome } from './outcome.ts';
import type { InstallFailure, InstallResult } from './install-codes.ts';

export interface RebuildOutcome extends InstallOutcome {
  /** name@version of each package whose scripts ran. */
  readonly scriptsRun: readonly string[];
  /** True when the artifact had to be fetched again (and was verified) before scripts ran. */
  readonly refetched: boolean;
  readonly note?: string;
}

/**
 * Is this closure entry on disk as recorded: either the artifact as installed with scripts off,
 * or (when `built` is allowed) the state the trusted scripts left it in? A fresh extraction can
 * only ever equal the former, so after a refetch `built` is not accepted.
 */
async function intact(root: string, entry: ClosureEntry, built: boolean): Promise<boolean> {
  const dir = path.join(root, entry.path);
  if (!existsSync(path.join(dir, 'package.json'))) return false;
  const pkg = await readInstalledPackageJson(root, entry.path);
  if (!pkg.ok || pkg.value.name !== entry.name || pkg.value.version !== entry.version) return false;
  const digest = await treeDigest(dir);
  return digest === entry.treeDigest || (built && entry.builtDigest !== undefined && digest === entry.builtDigest);
}

async function save(ctx: OpContext, ledger: Ledger, record: PackRecord): Promise<Ledger> {
  const next = { ...ledger, packs: { ...ledger.packs, [record.name]: record } };
  await writeLedger(ctx.root, next);
  return next;
}

export async function rebuildLocked(ctx: OpContext, ledger: Ledger, name: string): Promise<InstallResult<RebuildOutcome>> {
  const record = ledger.packs[name];
  if (!record) return fail('not-installed', `No pack named ${name} is installed.`);
  if (record.installMode === 'sandbox-only') {
    return ok({ ...outcomeOf(record), scriptsRun: [], refetched: false, note: 'Sandbox-only packs never run install scripts.' });
  }
  if (!trustCovers(record)) {
    return fail(
      'trust-required',
      `${name}@${record.version} needs your trust first: run \`trust ${name} --dry-run\` to see what would run, then \`trust ${name}\`.`,
    );
  }
  const inactive = { ...record, status: 'needs-rebuild' as const };
  /** Leave the pack trusted but inactive, with the reason recorded so every view shows why. */
  const stopped = async (failure: InstallFailure): Promise<InstallFailure> => {
    await save(ctx, ledger, { ...inactive, setupFailure: { code: failure.code, message: failure.message.slice(0, 4000), at: new Date().toISOString() } });
    return failure;
  };

  // The lockfile must still pin the artifact consent was given to.
  const lock = await readLockfile(ctx.root);
  if (!lock.ok) return lock;
  const pinned = lock.value?.packages[`node_modules/${name}`];
  if (!pinned || pinned.integrity !== record.integrity) {
    return stopped(fail('integrity-mismatch', `The root's lockfile no longer pins ${name}@${record.version} with the integrity you trusted; nothing was run.`));
  }

  ctx.progress({ stage: 'classifying', message: 'checking the artifact on disk against the install' });
  const broken: ClosureEntry[] = [];
  for (const entry of record.closure) if (!(await intact(ctx.root, entry, true))) broken.push(entry);

  let refetched = false;
  if (broken.length > 0) {
    ctx.progress({ stage: 'fetching', message: `fetching ${broken.map((e) => `${e.name}@${e.version}`).join(', ')} again and verifying integrity` });
    const verified = await verifyRefetch(ctx.root, broken);
    if (!verified.ok) return stopped(verified);
    for (const entry of broken) await rm(path.join(ctx.root, entry.path), { recursive: true, force: true });
    // npm restores from the lockfile and checks the same integrity again as it extracts.
    const run = await npmInstall(ctx, []);
    if (run.code !== 0) return stopped(npmFailure(run, `restoring ${name} from the lockfile`));
    for (const entry of broken) {
      if (!(await intact(ctx.root, entry, false))) {
        return stopped(
          fail(
            'integrity-mismatch',
            `${entry.name}@${entry.version} on disk still differs from what was first installed after it was fetched again; nothing was run.`,
          ),
        );
      }
    }
    refetched = true;
  }

  const targets = [...new Set(record.scripts.map((s) => `${s.package}@${s.version}`))];
  const ledgerNow = await save(ctx, ledger, inactive);
  if (targets.length > 0) {
    // An unreadable root package.json is a tagged failure; the pack stays saved as inactive.
    const policy = await syncScriptPolicy(ctx.root, ledgerNow);
    if (!policy.ok) return policy;
    ctx.progress({ stage: 'rebuilding', message: `running the trusted install scripts of ${targets.join(', ')}` });
    const run = await npm(ctx, ['rebuild', '--ignore-scripts=false', '--strict-allow-scripts=true', '--foreground-scripts=false', ...targets]);
    if (run.code !== 0) {
      // npm's own lines, in order: the script's output (the cause) comes after npm's preamble.
      const failure = fail('rebuild-failed', `The install scripts of ${name}@${record.version} failed. npm said:\n${npmErrorLines(run)}`);
      await save(ctx, ledgerNow, { ...inactive, setupFailure: { code: failure.code, message: failure.message, at: new Date().toISOString() } });
      return failure;
    }
  }
  // Scripts may write into their package directories: record what they left as the built state,
  // and keep the artifact's own digest, which is what a later refetch must reproduce.
  const closure: ClosureEntry[] = [];
  for (const entry of record.closure) closure.push({ ...entry, builtDigest: await treeDigest(path.join(ctx.root, entry.path)) });
  const { setupFailure: _cleared, ...succeeded } = record;
  const active: PackRecord = { ...succeeded, closure, status: 'active' };
  await save(ctx, ledgerNow, active);
  ctx.progress({ stage: 'done', message: `${name}@${record.version} active` });
  return ok({ ...outcomeOf(active), scriptsRun: targets, refetched });
}
