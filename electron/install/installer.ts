// The installer service: one typed API over a managed install root, used by the pack services
// behind every face, app start (reconcile) and `pack check`. Every operation returns a tagged
// result; every mutating one runs through locked-run.ts: under the root lock, after what an
// interrupted operation left is repaired, with a journal of its own so that it can be repaired.
// Installing never runs pack code: npm runs with scripts off, the installed artifact is classified,
// and only sandbox-only packs become active at once. Host code and scripts wait for consent
// (trust.ts), which is keyed to the exact artifact. The ledger is written only after the artifact
// is fully inspected, so an install that is killed or fails never leaves an active half pack.

import { existsSync } from 'node:fs';
import {
  SOURCE_LABELS,
  trustCovers,
  type InstallMode,
  type LifecycleScript,
  type Ledger,
  type PackInstallStatus,
  type PackRecord,
} from '../../shared/protocol/ledger.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { defaultDataDir } from '../platform/data-dir.ts';
import { isDiskFull } from '../platform/durable-file.ts';
import { classify, inspectClosure, readInstalledPackageJson } from './inspect.ts';
import { ledgerPath, readLedger, writeLedger } from './ledger-store.ts';
import { runLocked, type LockedOperation } from './locked-run.ts';
import { readLockfile, readRootPackageJson } from './npm-root.ts';
import { outcomeOf, type InstallOutcome } from './outcome.ts';
import { reconcileLocked, type ReconcileReport } from './reconcile.ts';
import { npmFailure, npmInstall, npmUninstall, syncScriptPolicy, type OpContext, type ProgressListener } from './root-ops.ts';
import { parseSpec, type ParsedSpec } from './spec.ts';
import { rebuildLocked, type RebuildOutcome } from './trust.ts';

export interface InstallerOptions {
  /** The managed install root; defaults to the app data directory. */
  readonly root?: string;
  /** Registry URL; remembered in the root's ledger, so later calls may omit it. */
  readonly registry?: string;
  /** How long a mutating call waits for another one on the same root before answering `busy`. Default 0. */
  readonly lockWaitMs?: number;
  /** Examines an installed pack just before it is recorded (the app discovers it with its compiler); if it throws, the install is undone. */
  readonly compile?: (root: string, record: PackRecord) => Promise<void>;
}

export interface OpOptions {
  readonly onProgress?: ProgressListener;
}

/** The artifact a person reviewed before consenting: trust and rebuild refuse if another is installed now. */
export interface ReviewedArtifact {
  readonly version: string;
  readonly integrity: string;
}

function changedSinceReview(record: PackRecord, reviewed: ReviewedArtifact | undefined): Result<never> | undefined {
  if (reviewed === undefined || (reviewed.version === record.version && reviewed.integrity === record.integrity)) return undefined;
  const what =
    reviewed.version === record.version ? `${record.name}@${record.version} is now a different artifact` : `${record.name} is now at ${record.version}`;
  return fail(
    'pack-changed',
    `You reviewed ${record.name}@${reviewed.version}, but ${what}; nothing was run. Open the dialog again to review what is installed now.`,
  );
}

export interface TrustDryRun {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  readonly installMode: InstallMode;
  /** The literal scripts a rebuild would run, the pack's own first. */
  readonly scripts: readonly LifecycleScript[];
}

const quiet: ProgressListener = () => {};

/** Set while the tree holds an unrecorded install: how to put it back if anything throws. */
interface UndoGuard {
  undo?: () => Promise<void>;
}

export function createInstaller(options: InstallerOptions = {}) {
  const root = options.root ?? defaultDataDir();

  /** Run `body` under the root lock, after repairs, with its journal written (locked-run.ts). */
  function locked<T>(
    operation: LockedOperation['operation'],
    target: string,
    onProgress: ProgressListener,
    body: (ctx: OpContext, ledger: Ledger, notes: readonly string[]) => Promise<Result<T>>,
  ): Promise<Result<T>> {
    return runLocked(
      { root, ...(options.registry ? { registry: options.registry } : {}), lockWaitMs: options.lockWaitMs ?? 0 },
      { operation, target, progress: onProgress },
      body,
    );
  }

  /**
   * npm-install `spec`, then classify and record it. On any failure the tree is put back and the
   * ledger is untouched — also when something throws after npm ran (the compile hook, a bug):
   * a pack in the tree but not in the ledger, or recorded but never examined, is a half install.
   */
  async function installParsed(ctx: OpContext, ledger: Ledger, parsed: ParsedSpec, previous?: PackRecord): Promise<Result<PackRecord>> {
    const guard: UndoGuard = {};
    try {
      return await installParsedUnguarded(ctx, ledger, parsed, guard, previous);
    } catch (error) {
      if (!guard.undo) throw error;
      await guard.undo();
      const putBack = previous ? `${previous.name}@${previous.version} was put back` : 'the pack was removed again';
      // A full disk is the user's to fix, not a bug: the lock holder then rolls back from the journal what the undo could not.
      if (isDiskFull(error))
        return fail(
          'disk-full',
          `The disk is full: ${parsed.spec} could not be recorded after npm installed it (${(error as Error).message}). Free some space, then try again.`,
        );
      return fail('install-failed', `Installing ${parsed.spec} failed after npm ran (${String(error)}); ${putBack} and nothing was recorded.`);
    }
  }

  async function installParsedUnguarded(
    ctx: OpContext,
    ledger: Ledger,
    parsed: ParsedSpec,
    guard: UndoGuard,
    previous?: PackRecord,
  ): Promise<Result<PackRecord>> {
    const before = await readRootPackageJson(ctx.root);
    if (!before.ok) return before;
    ctx.progress({ stage: 'fetching', message: `npm install ${parsed.npmArg} (scripts off)` });
    const run = await npmInstall(ctx, [parsed.npmArg]);
    if (run.code !== 0) return npmFailure(run, `installing ${parsed.spec}`, { registry: ctx.registry, spec: parsed.spec });

    ctx.progress({ stage: 'classifying', message: 'reading the installed package.json' });
    const after = await readRootPackageJson(ctx.root);
    if (!after.ok) return after;
    const beforeDeps = before.value.dependencies ?? {};
    const afterDeps = after.value.dependencies ?? {};
    // A tarball names its package only inside: if it carries the name of a pack already here,
    // npm has just replaced that pack's files. Put the recorded artifact back and refuse.
    const replaced = Object.keys(afterDeps).find((dep) => dep in beforeDeps && beforeDeps[dep] !== afterDeps[dep] && dep !== previous?.name);
    if (replaced) {
      await npmInstall(ctx, [`${replaced}@${beforeDeps[replaced] as string}`]);
      return fail('usage', `${parsed.spec} contains ${replaced}, which is already installed; uninstall it first if you mean to replace it.`);
    }
    const name = parsed.name ?? Object.keys(afterDeps).find((dep) => !(dep in beforeDeps));
    if (!name) return fail('install-failed', `npm finished, but no new package appeared in the install root for ${parsed.spec}.`);
    const undo = async (): Promise<void> => {
      if (previous) await npmInstall(ctx, [`${previous.name}@${previous.version}`]);
      else await npmUninstall(ctx, [name]);
    };
    guard.undo = undo;
    const pkg = await readInstalledPackageJson(ctx.root, `node_modules/${name}`);
    if (!pkg.ok) {
      await undo();
      return pkg;
    }
    if (pkg.value.name !== name) {
      // A registry tarball may carry any name inside; a pack that claims another pack's name could
      // pose as it to discovery, so the installed name must be the requested one.
      await undo();
      return fail('install-failed', `The package installed as ${name} calls itself ${pkg.value.name} in its package.json; it was removed again.`);
    }
    const kind = classify(pkg.value, `node_modules/${name}/package.json`);
    if (!kind.ok) {
      await undo();
      return kind;
    }
    const lock = await readLockfile(ctx.root);
    if (!lock.ok || !lock.value) {
      await undo();
      return lock.ok ? fail('install-failed', 'npm finished but wrote no lockfile.') : lock;
    }
    const inspected = await inspectClosure(ctx.root, lock.value, name);
    if (!inspected.ok) {
      await undo();
      return inspected;
    }
    const self = inspected.value.closure[0];
    if (!self?.integrity || !self.resolved) {
      await undo();
      return fail('install-failed', `The lockfile has no resolved URL and integrity for ${name}, so the artifact cannot be pinned; it was removed again.`);
    }
    const base = {
      name,
      version: pkg.value.version,
      spec: parsed.spec,
      resolved: self.resolved,
      integrity: self.integrity,
      installMode: kind.value.mode,
      installedAt: new Date().toISOString(),
      source: parsed.source,
      sourceLabel: SOURCE_LABELS[parsed.source],
      scripts: inspected.value.scripts,
      closure: inspected.value.closure,
    } as const;
    // Consent carries over only to the identical artifact (same name, version and integrity).
    const keptTrust = previous?.trust && trustCovers({ ...base, trust: previous.trust }) ? previous.trust : null;
    const status: PackInstallStatus = kind.value.mode === 'sandbox-only' ? 'active' : keptTrust && previous?.status === 'active' ? 'active' : 'needs-trust';
    const record: PackRecord = { ...base, trust: keptTrust, status };
    if (options.compile && record.installMode !== 'register') {
      ctx.progress({ stage: 'compiling', message: 'preparing sandbox modules' });
      await options.compile(ctx.root, record);
    }
    const next: Ledger = { ...ledger, packs: { ...ledger.packs, [name]: record } };
    await writeLedger(ctx.root, next);
    // Recorded: from here the ledger and the tree agree, so a later throw must not undo the tree.
    guard.undo = undefined;
    const policy = await syncScriptPolicy(ctx.root, next);
    if (!policy.ok) return policy;
    return ok(record);
  }

  return {
    root,

    async install(spec: string, opts: OpOptions = {}): Promise<Result<InstallOutcome>> {
      const parsed = parseSpec(spec, process.cwd());
      if (!parsed.ok) return parsed;
      const progress = opts.onProgress ?? quiet;
      return locked('install', parsed.value.spec, progress, async (ctx, ledger) => {
        ctx.progress({ stage: 'resolving', message: `resolving ${parsed.value.spec} against ${ctx.registry}` });
        const known = parsed.value.name && ledger.packs[parsed.value.name];
        if (known) return fail('usage', `${known.name}@${known.version} is already installed; use \`update ${known.name}\` to change its version.`);
        const result = await installParsed(ctx, ledger, parsed.value);
        if (!result.ok) return result;
        ctx.progress({ stage: 'done', message: `${result.value.name}@${result.value.version} ${result.value.status}` });
        return ok(outcomeOf(result.value));
      });
    },

    async update(name: string, opts: OpOptions & { to?: string } = {}): Promise<Result<InstallOutcome>> {
      const progress = opts.onProgress ?? quiet;
      return locked('update', name, progress, async (ctx, ledger) => {
        const previous = ledger.packs[name];
        if (!previous) return fail('not-installed', `No pack named ${name} is installed.`);
        if (previous.source !== 'registry') return fail('usage', `${name} was installed from a tarball; install the new tarball after uninstalling it.`);
        const parsed = parseSpec(`${name}@${opts.to ?? 'latest'}`, ctx.root);
        if (!parsed.ok) return parsed;
        ctx.progress({ stage: 'resolving', message: `resolving ${parsed.value.spec} against ${ctx.registry}` });
        const result = await installParsed(ctx, ledger, parsed.value, previous);
        if (!result.ok) return result;
        ctx.progress({ stage: 'done', message: `${name} ${previous.version} → ${result.value.version} ${result.value.status}` });
        return ok(outcomeOf(result.value, previous.version));
      });
    },

    async uninstall(name: string, opts: OpOptions = {}): Promise<Result<{ name: string; version: string }>> {
      return locked('uninstall', name, opts.onProgress ?? quiet, async (ctx, ledger) => {
        const record = ledger.packs[name];
        if (!record) return fail('not-installed', `No pack named ${name} is installed.`);
        ctx.progress({ stage: 'removing', message: `npm uninstall ${name}` });
        // Forget it first: if npm is interrupted, reconcile removes the unrecorded leftovers.
        const packs = { ...ledger.packs };
        delete packs[name];
        const next = { ...ledger, packs };
        await writeLedger(ctx.root, next);
        const run = await npmUninstall(ctx, [name]);
        if (run.code !== 0) return npmFailure(run, `uninstalling ${name}`);
        const policy = await syncScriptPolicy(ctx.root, next);
        if (!policy.ok) return policy;
        ctx.progress({ stage: 'done', message: `${name} removed` });
        return ok({ name, version: record.version });
      });
    },

    /** Dry run: the literal scripts that consent would allow. Read-only, so no lock. */
    async trustDryRun(name: string): Promise<Result<TrustDryRun>> {
      const read = await readLedger(root);
      if (!read.ok) return read;
      const record = read.value?.packs[name];
      if (!record) return fail('not-installed', `No pack named ${name} is installed.`);
      const scripts = [...record.scripts].sort((a, b) => Number(b.own) - Number(a.own));
      return ok({ name, version: record.version, integrity: record.integrity, installMode: record.installMode, scripts });
    },

    /** Record consent for the exact installed artifact, then run its scripts (rebuild). */
    async trust(name: string, opts: OpOptions & { reviewed?: ReviewedArtifact } = {}): Promise<Result<RebuildOutcome>> {
      return locked('trust', name, opts.onProgress ?? quiet, async (ctx, ledger) => {
        const record = ledger.packs[name];
        if (!record) return fail('not-installed', `No pack named ${name} is installed.`);
        const stale = changedSinceReview(record, opts.reviewed);
        if (stale) return stale;
        if (record.installMode === 'sandbox-only') {
          return ok({
            ...outcomeOf(record),
            scriptsRun: [],
            refetched: false,
            note: 'Sandbox-only packs run no host code and no install scripts; it is active already.',
          });
        }
        const trusted: PackRecord = {
          ...record,
          trust: { name: record.name, version: record.version, integrity: record.integrity, at: new Date().toISOString() },
          status: 'needs-rebuild',
        };
        const next = { ...ledger, packs: { ...ledger.packs, [name]: trusted } };
        await writeLedger(ctx.root, next);
        return rebuildLocked(ctx, next, name);
      });
    },

    /** Run the trusted pack's scripts again against the artifact on disk. */
    async rebuild(name: string, opts: OpOptions & { reviewed?: ReviewedArtifact } = {}): Promise<Result<RebuildOutcome>> {
      return locked('rebuild', name, opts.onProgress ?? quiet, async (ctx, ledger) => {
        const record = ledger.packs[name];
        const stale = record ? changedSinceReview(record, opts.reviewed) : undefined;
        return stale ?? rebuildLocked(ctx, ledger, name);
      });
    },

    async list(): Promise<Result<{ registry: string | undefined; packs: PackRecord[] }>> {
      const read = await readLedger(root);
      if (!read.ok) return read;
      const packs = Object.values(read.value?.packs ?? {}).sort((a, b) => a.name.localeCompare(b.name));
      return ok({ registry: read.value?.registry, packs });
    },

    /** Bring tree and ledger back in line (run at app start); reports what it fixed, a damaged ledger and an interrupted operation included. */
    async reconcile(opts: OpOptions = {}): Promise<Result<ReconcileReport>> {
      // A root without a ledger is a plain tree (a checkout, a fixture): never "fix" it. A damaged
      // ledger still marks a managed root; the lock holder repairs it.
      if (!existsSync(ledgerPath(root))) return ok({ fixed: [], removedFromTree: [], forgotten: [], missing: [] });
      return locked('reconcile', root, opts.onProgress ?? quiet, (ctx, ledger, notes) => reconcileLocked(ctx, ledger, notes));
    },
  };
}

export type Installer = ReturnType<typeof createInstaller>;
