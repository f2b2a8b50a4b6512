// How every mutating installer operation runs: under the root lock (waiting for another operation
// up to a bound, and saying so), on a ledger repaired if it was damaged, after whatever an
// interrupted operation left has been rolled back or finished (recovery.ts), and with its own
// journal written before it changes anything — so a process killed at any point leaves a root the
// next lock holder can put right, and says what it put right. A full disk and the user's Cancel
// are expected failures: what the operation had changed is rolled back from its journal at once.

import type { ChildProcess } from 'node:child_process';
import { defaultDataDir } from '../platform/data-dir.ts';
import { isDiskFull } from '../platform/durable-file.ts';
import type { Ledger } from '../../shared/protocol/ledger.ts';
import { fail } from '../../shared/protocol/result.ts';
import { beginJournal, clearJournal, readJournal, type JournalOperation } from './journal.ts';
import { adoptUnrecorded, rebuildLedgerFromTree } from './ledger-rebuild.ts';
import { emptyLedger, readLedger, repairLedger, writeLedger } from './ledger-store.ts';
import { DEFAULT_REGISTRY, ensureRoot, readRootPackageJson } from './npm-root.ts';
import { reconcileLocked } from './reconcile.ts';
import { recoverPending } from './recovery.ts';
import { acquireRootLock, ownerText, waitText, type RootLock } from './root-lock.ts';
import type { OpContext, ProgressListener } from './root-ops.ts';
import type { InstallFailure, InstallResult } from './install-codes.ts';

export interface LockedRunOptions {
  readonly root?: string;
  readonly registry?: string;
  readonly lockWaitMs?: number;
  /** Sees each npm child as it starts (first-run's tests count the runs). */
  readonly onNpmSpawn?: (child: ChildProcess) => void;
  /** npm's --fetch-timeout for the operation's npm runs. */
  readonly fetchTimeoutMs?: number;
}

export interface LockedOperation {
  readonly operation: JournalOperation;
  /** The spec or pack name, for the journal and the sentences. */
  readonly target: string;
  readonly progress: ProgressListener;
  /** The user's Cancel: stops the operation's npm run; what it changed is then rolled back. */
  readonly signal?: AbortSignal;
}

const VERB: Record<LockedOperation['operation'], string> = {
  install: 'installing',
  update: 'updating',
  uninstall: 'uninstalling',
  trust: 'trusting',
  rebuild: 'rebuilding',
  reconcile: 'repairing the install root for',
  'first-run': 'installing',
  'decide-use': 'recording your decision about',
};

function diskFull(root: string, op: Pick<LockedOperation, 'operation' | 'target'>): InstallFailure {
  return fail(
    'disk-full',
    `The disk holding the install root ${root} is full, so ${VERB[op.operation]} ${op.target} could not finish. Free some space, then try again.`,
  );
}

function tookOverSentence(lock: RootLock): string[] {
  if (!lock.tookOverStale) return [];
  const owner = lock.staleOwner;
  const who = owner ? `The ${owner.operation} started by process ${owner.pid} at ${owner.startedAt}` : 'An earlier operation';
  return [`${who} stopped without finishing and left the install root locked; the lock was taken over.`];
}

/**
 * Run `body` as described above. `notes` are the repairs made before it (only the `reconcile`
 * operation receives any: it reports them; every other operation reports them as `repairing`
 * progress after a full reconcile).
 */
export async function runLocked<T>(
  options: LockedRunOptions,
  op: LockedOperation,
  body: (ctx: OpContext, ledger: Ledger, notes: readonly string[]) => Promise<InstallResult<T>>,
): Promise<InstallResult<T>> {
  const root = options.root ?? defaultDataDir();
  const waitMs = options.lockWaitMs ?? 0;
  try {
    await ensureRoot(root);
  } catch (error) {
    if (isDiskFull(error)) return diskFull(root, op);
    throw error;
  }
  const lock = await acquireRootLock(root, op.operation, waitMs, {
    onWait: (owner) =>
      op.progress({
        stage: 'waiting',
        message: `Another operation (${ownerText(owner)}) is running on this install root; waiting up to ${waitText(waitMs)} for it to finish.`,
      }),
  });
  if (!lock.ok) return lock;
  try {
    const notes = tookOverSentence(lock.value);
    const repaired = await repairLedger(root, () => rebuildLedgerFromTree(root, options.registry ?? DEFAULT_REGISTRY));
    if (!repaired.ok) return repaired;
    notes.push(...repaired.value.repaired);
    let found = repaired.value.ledger;
    if (found && repaired.value.fromBackup) {
      const adopted = await adoptUnrecorded(root, found, await addedByPending(root));
      if (!adopted.ok) return adopted;
      if (adopted.value.adopted.length) await writeLedger(root, adopted.value.ledger);
      found = adopted.value.ledger;
      notes.push(...adopted.value.adopted);
    }
    const registry = options.registry ?? found?.registry ?? DEFAULT_REGISTRY;
    let ledger: Ledger = found ? { ...found, registry } : emptyLedger(registry);
    // The ledger exists before npm ever runs, so the root is managed even if this call is killed.
    if (!found || found.registry !== registry) await writeLedger(root, ledger);
    const ctx: OpContext = {
      root,
      registry,
      progress: op.progress,
      onNpmSpawn: (child) => {
        lock.value.track(child);
        options.onNpmSpawn?.(child);
      },
      ...(options.fetchTimeoutMs !== undefined ? { fetchTimeoutMs: options.fetchTimeoutMs } : {}),
    };

    const recovered = await recoverPending(ctx, ledger);
    if (!recovered.ok) return recovered;
    notes.push(...recovered.value.fixed);
    if (op.operation !== 'reconcile' && notes.length > 0) {
      // Something was interrupted: check the whole root before this operation relies on it.
      await beginJournal(root, 'reconcile', op.target, ledger);
      const report = await reconcileLocked(ctx, ledger, notes);
      if (!report.ok) return report;
      for (const line of [...report.value.fixed, ...report.value.missing]) op.progress({ stage: 'repairing', message: line });
      const reread = await readLedger(root);
      if (!reread.ok) return reread;
      ledger = reread.value ?? ledger;
    }

    await beginJournal(root, op.operation, op.target, ledger);
    let result: InstallResult<T>;
    try {
      // Only the operation's own work can be cancelled: the repairs before it and the rollback after it run to the end.
      result = await body(op.signal ? { ...ctx, signal: op.signal } : ctx, ledger, op.operation === 'reconcile' ? notes : []);
    } catch (error) {
      // A bug leaves the journal in place: the next start rolls the operation back.
      if (!isDiskFull(error)) throw error;
      result = diskFull(root, op);
    }
    if (!result.ok && result.code === 'install-cancelled') return await rollBackAfterCancel(ctx, op, result);
    if (result.ok || result.code !== 'disk-full') {
      await clearJournal(root);
      return result;
    }
    return await rollBackAfterDiskFull(ctx, result);
  } catch (error) {
    // The journal itself (or the ledger before it) could not be written: nothing was changed.
    if (isDiskFull(error)) return diskFull(root, op);
    throw error;
  } finally {
    await lock.value.release();
  }
}

/** The packages an interrupted operation added to the root's package.json (its journal rolls them back): not to be recorded. */
async function addedByPending(root: string): Promise<ReadonlySet<string>> {
  const pending = await readJournal(root);
  if (pending.state !== 'pending' || typeof pending.journal.packageJson !== 'string') return new Set();
  let before: Record<string, unknown> = {};
  try {
    before = (JSON.parse(pending.journal.packageJson) as { dependencies?: Record<string, unknown> }).dependencies ?? {};
  } catch {
    // A journal that saved a damaged package.json: treat every dependency as added.
  }
  const now = await readRootPackageJson(root);
  return new Set(Object.keys(now.ok ? (now.value.dependencies ?? {}) : {}).filter((name) => !(name in before)));
}

/** The user stopped the operation: undo what it had changed, from its own journal, now (as after a killed process). */
async function rollBackAfterCancel(ctx: OpContext, op: Pick<LockedOperation, 'operation' | 'target'>, failure: InstallFailure): Promise<InstallFailure> {
  const current = await readLedger(ctx.root);
  const recovered = current.ok && current.value ? await recoverPending(ctx, current.value) : current;
  if (!recovered.ok) return fail(recovered.code, `${failure.message} Undoing what it had changed failed: ${recovered.message}`);
  const kept = op.operation === 'update' ? `${op.target} stays at the version it had` : 'Nothing was installed';
  return fail('install-cancelled', `${failure.message} ${kept}; the packs are as they were.`);
}

/** A full disk stopped the operation: undo what it had changed, from its own journal, now. */
async function rollBackAfterDiskFull(ctx: OpContext, failure: InstallFailure): Promise<InstallFailure> {
  const current = await readLedger(ctx.root);
  let undone = false;
  if (current.ok && current.value) {
    try {
      const recovered = await recoverPending(ctx, current.value);
      undone = recovered.ok;
    } catch (error) {
      if (!isDiskFull(error)) throw error;
    }
  }
  const pending = await readJournal(ctx.root);
  const state =
    undone && pending.state === 'none'
      ? 'What it had changed was undone; the install root is as it was.'
      : 'The install root is put back as it was at the next install, update or start, once there is space.';
  return fail('disk-full', `${failure.message} ${state}`);
}
