// Bringing a managed root's tree back in line with its ledger, e.g. at app start after a crash.
// An operation that was interrupted is first finished or rolled back from its journal
// (recovery.ts, run by the lock holder before this); what is left is checked here. The ledger is
// the truth: a package the root's package.json lists but the ledger does not (an install or update
// killed after npm wrote the tree, in a root without a journal) is removed; a recorded pack whose
// files are replaced by another version is forgotten (it cannot be active anyway), one whose files
// are gone, or cut short so its package.json is unreadable (then deleted), stays recorded but
// inactive until `rebuild` restores it with verified integrity; temp files of an interrupted
// durable write are deleted. Each fix is reported in a sentence.

import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Ledger } from '../../shared/protocol/ledger.ts';
import { PackageNameSchema } from '../../shared/protocol/manifest.ts';
import { ok } from '../../shared/protocol/result.ts';
import { isTempOf, tempWriterOf } from '../platform/durable-file.ts';
import { readInstalledPackageJson } from './inspect.ts';
import { JOURNAL_FILE } from './journal.ts';
import { LEDGER_FILE, writeLedger } from './ledger-store.ts';
import { readRootPackageJson } from './npm-root.ts';
import { removeExtraneous } from './recovery.ts';
import { pidAlive } from './root-lock.ts';
import { npmFailure, npmUninstall, syncScriptPolicy, type OpContext } from './root-ops.ts';
import type { InstallResult } from './install-codes.ts';

/** Files written through writeFileDurably in the root (and their backups): their temp files are leftovers. */
const DURABLE_FILES = [LEDGER_FILE, JOURNAL_FILE, 'package.json', '.sandbox-packs-npmrc'];

export interface ReconcileReport {
  /** One sentence per fix; empty when tree and ledger already agreed. */
  readonly fixed: readonly string[];
  readonly removedFromTree: readonly string[];
  readonly forgotten: readonly string[];
  /** Recorded packs whose files are gone: left recorded (inactive), one sentence each. */
  readonly missing: readonly string[];
}

/** What a recorded pack without its files says; it stays recorded, inactive, until rebuilt. */
const filesMissing = (record: { readonly name: string; readonly version: string }): string =>
  `${record.name}@${record.version}'s files are missing, so it is inactive; \`rebuild ${record.name}\` fetches it again (verified) or \`uninstall ${record.name}\` drops it.`;

/** `notes`: what the lock holder already repaired (a stale lock, the ledger, an interrupted operation), reported first. */
export async function reconcileLocked(ctx: OpContext, ledger: Ledger, notes: readonly string[] = []): Promise<InstallResult<ReconcileReport>> {
  const fixed: string[] = [...notes];
  const forgotten: string[] = [];
  const packs = { ...ledger.packs };

  for (const file of await readdir(ctx.root)) {
    const base = DURABLE_FILES.find((b) => isTempOf(b, file));
    if (base === undefined) continue;
    // A temp file of a process that is still running is a write in flight (another process
    // creating the root's package.json as it starts, which it does before taking the lock), not a
    // leftover: deleting it made that process fail to start.
    const writer = tempWriterOf(base, file);
    if (writer !== undefined && (await pidAlive(writer))) continue;
    await rm(path.join(ctx.root, file), { force: true });
    fixed.push(`Deleted ${file}, left by an interrupted write.`);
  }

  const missing: string[] = [];
  for (const record of Object.values(ledger.packs)) {
    const dir = path.join(ctx.root, 'node_modules', record.name);
    if (!existsSync(dir)) {
      // Kept: the lockfile still pins it, and `rebuild` restores it only after verifying integrity.
      missing.push(filesMissing(record));
      continue;
    }
    const pkg = await readInstalledPackageJson(ctx.root, `node_modules/${record.name}`);
    if (!pkg.ok) {
      // Files cut short (npm killed while it extracted them, e.g. during a rebuild's refetch): what
      // is there cannot be trusted, but the record and the lockfile's pin are whole, so the pack
      // stays recorded with its files gone, and `rebuild` fetches them again, verified.
      await rm(dir, { recursive: true, force: true });
      fixed.push(`Deleted node_modules/${record.name}: its package.json was unreadable, left cut short by an interrupted operation.`);
      missing.push(filesMissing(record));
      continue;
    }
    if (pkg.value.name !== record.name || pkg.value.version !== record.version) {
      delete packs[record.name];
      forgotten.push(record.name);
      fixed.push(
        `Forgot ${record.name}@${record.version}: version ${pkg.value.version} is on disk instead (an interrupted update). Install it again to use it.`,
      );
    }
  }

  const rootPkg = await readRootPackageJson(ctx.root);
  if (!rootPkg.ok) return rootPkg;
  // Only well-formed names ever reach npm's argv, whatever the file says.
  const strays = Object.keys(rootPkg.value.dependencies ?? {}).filter((name) => !(name in packs) && PackageNameSchema.safeParse(name).success);
  const next: Ledger = { ...ledger, packs };
  if (forgotten.length) await writeLedger(ctx.root, next);
  if (strays.length) {
    const run = await npmUninstall(ctx, strays);
    if (run.code !== 0) return npmFailure(run, `removing unrecorded packages ${strays.join(', ')}`);
    for (const name of strays) fixed.push(`Removed ${name}: it was in the install root but never recorded (an interrupted install or update).`);
  }
  // npm killed mid-extract can leave directories no lockfile entry accounts for.
  const extraneous = await removeExtraneous(ctx);
  if (!extraneous.ok) return extraneous;
  if (extraneous.value.length) fixed.push(`Deleted ${extraneous.value.join(', ')}: left in node_modules by an interrupted install.`);
  if (fixed.length) {
    const policy = await syncScriptPolicy(ctx.root, next);
    if (!policy.ok) return policy;
  }
  return ok({ fixed, removedFromTree: strays, forgotten, missing });
}
