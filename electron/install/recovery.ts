// Finishing or rolling back an operation whose process died, from the journal it left
// (journal.ts), under the root lock. The ledger's single commit decides which: an install or an
// update that had not recorded its pack is rolled back (the saved package.json and lockfile are
// put back and npm makes node_modules match them, so the previous version returns); one that had
// is finished (only bookkeeping was left). An uninstall that had forgotten its pack is finished
// (npm removes it); one that had not changed nothing. A trust or rebuild never runs scripts here:
// its pack stays inactive until the user runs `rebuild` again. Files npm may have left cut short
// are put back from the journal in every case. Each repair is one sentence for the user; the
// journal is removed only after the repair succeeded, so a repair that is itself interrupted is
// simply done again at the next start.

import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { trustCovers, type Ledger, type PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { keepDamagedCopy, writeFileDurably } from '../platform/durable-file.ts';
import { clearJournal, journalPath, readJournal, type Journal } from './journal.ts';
import { NO_SCRIPTS, readLockfile, rootPaths } from './npm-root.ts';
import { npm, npmFailure, npmInstall, npmUninstall, type OpContext } from './root-ops.ts';
import type { InstallResult } from './install-codes.ts';

export interface Recovery {
  /** The ledger after recovery (unchanged: recovery rolls the tree back to it or forward to it). */
  readonly ledger: Ledger;
  /** One sentence per repair; empty when no operation had been interrupted. */
  readonly fixed: readonly string[];
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Put `saved` back as the file's text (null: the file did not exist; false: it was unreadable, left alone). True when something changed. */
async function restoreText(file: string, saved: string | null | false): Promise<boolean> {
  if (saved === false) return false;
  const current = await readOptional(file);
  if (current === saved) return false;
  if (saved === null) await rm(file, { force: true });
  else await writeFileDurably(file, saved);
  return true;
}

/** Put the saved text back only where npm left the file unreadable (cut short while it wrote it). */
async function restoreIfDamaged(file: string, saved: string | null | false): Promise<boolean> {
  if (saved === false) return false;
  const current = await readOptional(file);
  if (current === null ? saved === null : isJson(current)) return false;
  return restoreText(file, saved);
}

/** Both npm files, put back where damaged; a sentence when one was. */
async function restoreDamaged(root: string, journal: Journal): Promise<string[]> {
  const p = rootPaths(root);
  const restored: string[] = [];
  if (await restoreIfDamaged(p.packageJson, journal.packageJson)) restored.push('package.json');
  if (await restoreIfDamaged(p.lockfile, journal.lockfile)) restored.push('package-lock.json');
  return restored.length ? [`Put back ${restored.join(' and ')} from before the interrupted ${journal.operation}: npm had left it cut short.`] : [];
}

/** node_modules/<name> and node_modules/@scope/<name> paths present on disk. */
async function topLevelPackages(root: string): Promise<string[]> {
  const base = path.join(root, 'node_modules');
  if (!existsSync(base)) return [];
  const found: string[] = [];
  for (const entry of await readdir(base, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.name.startsWith('@') && entry.isDirectory()) {
      for (const inner of await readdir(path.join(base, entry.name))) found.push(`node_modules/${entry.name}/${inner}`);
    } else {
      found.push(`node_modules/${entry.name}`);
    }
  }
  return found;
}

/**
 * Delete top-level node_modules entries no lockfile entry accounts for (npm killed mid-extract,
 * or a rolled-back install: `npm install` restores what the lockfile pins but leaves extras).
 * Answers the paths deleted.
 */
export async function removeExtraneous(ctx: OpContext): Promise<InstallResult<string[]>> {
  const lock = await readLockfile(ctx.root);
  if (!lock.ok) return lock;
  const extraneous = (await topLevelPackages(ctx.root)).filter((rel) => !lock.value?.packages[rel]);
  if (extraneous.length === 0) return ok([]);
  const run = await npm(ctx, ['prune', ...NO_SCRIPTS]);
  if (run.code !== 0) return npmFailure(run, 'pruning leftovers of an interrupted install');
  for (const rel of extraneous) await rm(path.join(ctx.root, rel), { recursive: true, force: true });
  return ok(extraneous);
}

/** Names whose ledger record differs from the journal's (added, removed or changed). */
function changedRecords(before: Readonly<Record<string, PackRecord>>, after: Readonly<Record<string, PackRecord>>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => !isDeepStrictEqual(before[name], after[name])).sort();
}

const at = (record: PackRecord | undefined, name: string): string => (record ? `${name}@${record.version}` : name);

/** Does every package the lockfile pins sit in node_modules at its pinned version? */
async function treeMatchesLockfile(ctx: OpContext): Promise<boolean> {
  const lock = await readLockfile(ctx.root);
  if (!lock.ok || !lock.value) return false;
  for (const [rel, entry] of Object.entries(lock.value.packages)) {
    if (rel === '' || entry.link) continue;
    const installed = await readOptional(path.join(ctx.root, rel, 'package.json'));
    if (installed === null || !isJson(installed) || (JSON.parse(installed) as { version?: unknown }).version !== entry.version) return false;
  }
  return true;
}

/** Put the files back and make node_modules match them: the operation had recorded nothing. Answers whether anything had changed. */
async function rollBack(ctx: OpContext, journal: Journal): Promise<InstallResult<boolean>> {
  const p = rootPaths(ctx.root);
  const packageJsonChanged = await restoreText(p.packageJson, journal.packageJson);
  const lockfileChanged = await restoreText(p.lockfile, journal.lockfile);
  // Killed before npm changed anything (or after npm undid its own work): no npm run needed.
  const treeChanged = packageJsonChanged || lockfileChanged || !(await treeMatchesLockfile(ctx));
  if (treeChanged) {
    const run = await npmInstall(ctx, []);
    if (run.code !== 0) return npmFailure(run, `rolling back the interrupted ${journal.operation} of ${journal.target}`);
  }
  const extra = await removeExtraneous(ctx);
  return extra.ok ? ok(treeChanged || extra.value.length > 0) : extra;
}

async function recover(ctx: OpContext, ledger: Ledger, journal: Journal): Promise<InstallResult<string[]>> {
  const { operation, target } = journal;
  const changed = changedRecords(journal.packs, ledger.packs);
  switch (operation) {
    case 'install':
    case 'update':
    case 'first-run': {
      if (changed.length > 0) {
        const names = changed.map((name) => at(ledger.packs[name], name)).join(', ');
        return ok([
          ...(await restoreDamaged(ctx.root, journal)),
          `Finished the interrupted ${operation} of ${names}: it had been recorded before the process stopped.`,
        ]);
      }
      const rolled = await rollBack(ctx, journal);
      if (!rolled.ok) return rolled;
      const what = operation === 'first-run' ? 'the shipped packs' : target;
      if (!rolled.value) return ok([`The ${operation} of ${what} was interrupted before npm changed anything; nothing needed undoing.`]);
      if (operation === 'update') {
        return ok([
          `Rolled back the interrupted update of ${target}: the new version had not been recorded, so ${at(ledger.packs[target], target)} was put back.`,
        ]);
      }
      return ok([`Rolled back the interrupted install of ${what}: it had not been recorded, so what npm had added to the install root was removed again.`]);
    }
    case 'uninstall': {
      const repaired = await restoreDamaged(ctx.root, journal);
      const record = ledger.packs[target];
      if (record) return ok([...repaired, `The uninstall of ${target} was interrupted before it changed anything; ${at(record, target)} is still installed.`]);
      const run = await npmUninstall(ctx, [target]);
      if (run.code !== 0) return npmFailure(run, `finishing the interrupted uninstall of ${target}`);
      return ok([...repaired, `Finished the interrupted uninstall of ${at(journal.packs[target], target)}: it had been forgotten, so its files were removed.`]);
    }
    case 'trust':
    case 'rebuild': {
      const repaired = await restoreDamaged(ctx.root, journal);
      const record = ledger.packs[target];
      if (!record) return ok(repaired);
      if (record.status === 'active')
        return ok([...repaired, `Finished the interrupted ${operation} of ${at(record, target)}: its install scripts had run and it is active.`]);
      if (trustCovers(record)) {
        return ok([
          ...repaired,
          `The ${operation} of ${at(record, target)} was interrupted before its install scripts finished; it is trusted but stays inactive until it is rebuilt, which runs them again.`,
        ]);
      }
      return ok([...repaired, `The trust of ${at(record, target)} was interrupted before it was recorded; nothing ran, and it still needs your trust.`]);
    }
    case 'reconcile':
      return ok([...(await restoreDamaged(ctx.root, journal)), 'An interrupted repair of the install root was resumed.']);
    case 'decide-use':
      // One atomic ledger write that runs nothing: either it was recorded or the old decision stands.
      return ok(await restoreDamaged(ctx.root, journal));
  }
}

/** Under the root lock: repair what an interrupted operation's journal describes, then remove the journal. */
export async function recoverPending(ctx: OpContext, ledger: Ledger): Promise<InstallResult<Recovery>> {
  const pending = await readJournal(ctx.root);
  if (pending.state === 'none') return ok({ ledger, fixed: [] });
  if (pending.state === 'unreadable') {
    const aside = await keepDamagedCopy(journalPath(ctx.root));
    await clearJournal(ctx.root);
    return ok({
      ledger,
      fixed: [
        `An interrupted operation left an unreadable journal (${pending.reason}); it was kept as ${path.basename(aside)}, and the install root was checked against the ledger instead.`,
      ],
    });
  }
  const fixed = await recover(ctx, ledger, pending.journal);
  if (!fixed.ok) return fail(fixed.code, `${fixed.message} The install root is repaired at the next attempt.`);
  await clearJournal(ctx.root);
  return ok({ ledger, fixed: fixed.value });
}
