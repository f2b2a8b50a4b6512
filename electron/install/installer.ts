// The installer service: one typed API over a managed install root, used by the pack services
// behind every face, app start (reconcile) and `pack check`. Every operation returns a tagged
// result; every mutating one runs through locked-run.ts: under the root lock, after what an
// interrupted operation left is repaired, with a journal of its own so that it can be repaired.
// Installing never runs pack code: npm runs with scripts off, and what the ledger may record is
// decided in one place, install-pipeline.ts (which the first run's seeding uses too): only
// sandbox-only packs become active at once; host code and scripts wait for consent (trust.ts),
// keyed to the exact artifact; an install that is killed or fails never leaves a half pack.

import { existsSync } from 'node:fs';
import type { InstallMode, LifecycleScript, Ledger, PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { defaultDataDir } from '../platform/data-dir.ts';
import { installMany } from './install-pipeline.ts';
import { ledgerPath, readLedger, writeLedger } from './ledger-store.ts';
import { runLocked, type LockedOperation } from './locked-run.ts';
import { outcomeOf, type InstallOutcome } from './outcome.ts';
import { reconcileLocked, type ReconcileReport } from './reconcile.ts';
import { npmFailure, npmUninstall, syncScriptPolicy, type OpContext, type ProgressListener } from './root-ops.ts';
import { parseSpec, type ParsedSpec } from './spec.ts';
import { rebuildLocked, type RebuildOutcome } from './trust.ts';
import type { InstallResult } from './install-codes.ts';

export interface InstallerOptions {
  /** The managed install root; defaults to the app data directory. */
  readonly root?: string;
  /** Registry URL; remembered in the root's ledger, so later calls may omit it. */
  readonly registry?: string;
  /** How long a mutating call waits for another one on the same root before answering `busy`. Default 0. */
  readonly lockWaitMs?: number;
  /** Examines an installed pack just before it is recorded (the app discovers it with its compiler); if it throws, the install is undone. */
  readonly compile?: (root: string, record: PackRecord) => Promise<void>;
  /** How long npm waits for one registry request before giving up (npm-root.ts DEFAULT_FETCH_TIMEOUT_MS). */
  readonly fetchTimeoutMs?: number;
}

export interface OpOptions {
  readonly onProgress?: ProgressListener;
  /** Cancel (install and update): npm is stopped and what it changed is undone; the answer is `install-cancelled`. */
  readonly signal?: AbortSignal;
}

/** The artifact a person reviewed before consenting: trust and rebuild refuse if another is installed now. */
export interface ReviewedArtifact {
  readonly version: string;
  readonly integrity: string;
}

function changedSinceReview(record: PackRecord, reviewed: ReviewedArtifact | undefined): InstallResult<never> | undefined {
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

/** The installer's API over one install root; every call answers a tagged result whose code is an InstallCode (install-codes.ts). */
export interface Installer {
  readonly root: string;
  install(spec: string, opts?: OpOptions): Promise<InstallResult<InstallOutcome>>;
  update(name: string, opts?: OpOptions & { to?: string }): Promise<InstallResult<InstallOutcome>>;
  uninstall(name: string, opts?: OpOptions): Promise<InstallResult<{ name: string; version: string }>>;
  /** Dry run: the literal scripts that consent would allow. */
  trustDryRun(name: string): Promise<InstallResult<TrustDryRun>>;
  /** Record consent for the exact installed artifact, then run its scripts (rebuild). */
  trust(name: string, opts?: OpOptions & { reviewed?: ReviewedArtifact }): Promise<InstallResult<RebuildOutcome>>;
  /** Run the trusted pack's scripts again against the artifact on disk. */
  rebuild(name: string, opts?: OpOptions & { reviewed?: ReviewedArtifact }): Promise<InstallResult<RebuildOutcome>>;
  list(): Promise<InstallResult<{ registry: string | undefined; packs: PackRecord[] }>>;
  /** Record the user's decision to trust (or not) the pack for agents and its docs; runs nothing. */
  decideUse(name: string, trusted: boolean, opts?: OpOptions): Promise<InstallResult<PackRecord>>;
  /** Bring tree and ledger back in line (run at app start); reports what it fixed. */
  reconcile(opts?: OpOptions): Promise<InstallResult<ReconcileReport>>;
}

const quiet: ProgressListener = () => {};

export function createInstaller(options: InstallerOptions = {}): Installer {
  const root = options.root ?? defaultDataDir();

  /** Run `body` under the root lock, after repairs, with its journal written (locked-run.ts). */
  function locked<T>(
    operation: LockedOperation['operation'],
    target: string,
    onProgress: ProgressListener,
    body: (ctx: OpContext, ledger: Ledger, notes: readonly string[]) => Promise<InstallResult<T>>,
    signal?: AbortSignal,
  ): Promise<InstallResult<T>> {
    return runLocked(
      {
        root,
        ...(options.registry ? { registry: options.registry } : {}),
        lockWaitMs: options.lockWaitMs ?? 0,
        ...(options.fetchTimeoutMs !== undefined ? { fetchTimeoutMs: options.fetchTimeoutMs } : {}),
      },
      { operation, target, progress: onProgress, ...(signal ? { signal } : {}) },
      body,
    );
  }

  /** npm-install one spec and record it through the one pipeline (install-pipeline.ts). */
  async function installOne(ctx: OpContext, ledger: Ledger, parsed: ParsedSpec, previous?: PackRecord): Promise<InstallResult<PackRecord>> {
    const installed = await installMany(ctx, ledger, [{ parsed, ...(previous ? { previous } : {}) }], options.compile ? { compile: options.compile } : {});
    if (!installed.ok) return installed;
    const [record] = installed.value;
    if (!record) throw new Error('installMany answered no record for one target');
    return ok(record);
  }

  return {
    root,

    async install(spec: string, opts: OpOptions = {}): Promise<InstallResult<InstallOutcome>> {
      const parsed = parseSpec(spec, process.cwd());
      if (!parsed.ok) return parsed;
      const progress = opts.onProgress ?? quiet;
      return locked(
        'install',
        parsed.value.spec,
        progress,
        async (ctx, ledger) => {
          ctx.progress({ stage: 'resolving', message: `resolving ${parsed.value.spec} against ${ctx.registry}` });
          const result = await installOne(ctx, ledger, parsed.value);
          if (!result.ok) return result;
          ctx.progress({ stage: 'done', message: `${result.value.name}@${result.value.version} ${result.value.status}` });
          return ok(outcomeOf(result.value));
        },
        opts.signal,
      );
    },

    async update(name: string, opts: OpOptions & { to?: string } = {}): Promise<InstallResult<InstallOutcome>> {
      const progress = opts.onProgress ?? quiet;
      return locked(
        'update',
        name,
        progress,
        async (ctx, ledger) => {
          const previous = ledger.packs[name];
          if (!previous) return fail('not-installed', `No pack named ${name} is installed.`);
          if (previous.source !== 'registry')
            return fail(
              'not-updatable',
              `${name} was installed from a tarball, so it has no newer version to update to; uninstall it, then install the new tarball.`,
            );
          const parsed = parseSpec(`${name}@${opts.to ?? 'latest'}`, ctx.root);
          if (!parsed.ok) return parsed;
          ctx.progress({ stage: 'resolving', message: `resolving ${parsed.value.spec} against ${ctx.registry}` });
          const result = await installOne(ctx, ledger, parsed.value, previous);
          if (!result.ok) return result;
          ctx.progress({ stage: 'done', message: `${name} ${previous.version} → ${result.value.version} ${result.value.status}` });
          return ok(outcomeOf(result.value, previous.version));
        },
        opts.signal,
      );
    },

    async uninstall(name: string, opts: OpOptions = {}): Promise<InstallResult<{ name: string; version: string }>> {
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
    async trustDryRun(name: string): Promise<InstallResult<TrustDryRun>> {
      const read = await readLedger(root);
      if (!read.ok) return read;
      const record = read.value?.packs[name];
      if (!record) return fail('not-installed', `No pack named ${name} is installed.`);
      const scripts = [...record.scripts].sort((a, b) => Number(b.own) - Number(a.own));
      return ok({ name, version: record.version, integrity: record.integrity, installMode: record.installMode, scripts });
    },

    /** Record consent for the exact installed artifact, then run its scripts (rebuild). */
    async trust(name: string, opts: OpOptions & { reviewed?: ReviewedArtifact } = {}): Promise<InstallResult<RebuildOutcome>> {
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
    async rebuild(name: string, opts: OpOptions & { reviewed?: ReviewedArtifact } = {}): Promise<InstallResult<RebuildOutcome>> {
      return locked('rebuild', name, opts.onProgress ?? quiet, async (ctx, ledger) => {
        const record = ledger.packs[name];
        const stale = record ? changedSinceReview(record, opts.reviewed) : undefined;
        return stale ?? rebuildLocked(ctx, ledger, name);
      });
    },

    async list(): Promise<InstallResult<{ registry: string | undefined; packs: PackRecord[] }>> {
      const read = await readLedger(root);
      if (!read.ok) return read;
      const packs = Object.values(read.value?.packs ?? {}).sort((a, b) => a.name.localeCompare(b.name));
      return ok({ registry: read.value?.registry, packs });
    },

    async decideUse(name: string, trusted: boolean, opts: OpOptions = {}): Promise<InstallResult<PackRecord>> {
      return locked('decide-use', name, opts.onProgress ?? quiet, async (ctx, ledger) => {
        const record = ledger.packs[name];
        if (!record) return fail('not-installed', `No pack named ${name} is installed.`);
        const decided: PackRecord = { ...record, useDecision: { trusted, at: new Date().toISOString() } };
        await writeLedger(ctx.root, { ...ledger, packs: { ...ledger.packs, [name]: decided } });
        return ok(decided);
      });
    },

    /** Bring tree and ledger back in line (run at app start); reports what it fixed, a damaged ledger and an interrupted operation included. */
    async reconcile(opts: OpOptions = {}): Promise<InstallResult<ReconcileReport>> {
      // A root without a ledger is a plain tree (a checkout, a fixture): never "fix" it. A damaged
      // ledger still marks a managed root; the lock holder repairs it.
      if (!existsSync(ledgerPath(root))) return ok({ fixed: [], removedFromTree: [], forgotten: [], missing: [] });
      return locked('reconcile', root, opts.onProgress ?? quiet, (ctx, ledger, notes) => reconcileLocked(ctx, ledger, notes));
    },
  };
}
