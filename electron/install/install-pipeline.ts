// The one install pipeline, and the one place that decides what the ledger may record. npm runs
// once for every spec of a call (seeding six shipped packs pays npm's ≈1 s start-up once, not six
// times); then each installed package passes the same admission (admitPack): its package.json
// read and named as asked, classified, its closure inspected from the files on disk, its artifact
// pinned, consent carried over only to the identical artifact. Only after every package passed
// (and the compile hook examined it) is the ledger written, once. On any failure — or a throw
// after npm ran — the tree is put back and the ledger is untouched, so no half pack is recorded.
// Callers run it under the root lock (locked-run.ts), whose journal rolls back a killed run.

import path from 'node:path';
import { SOURCE_LABELS, trustCovers, type Ledger, type PackInstallStatus, type PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { isDiskFull } from '../platform/durable-file.ts';
import { classify, inspectClosure, readInstalledPackageJson } from './inspect.ts';
import { writeLedger } from './ledger-store.ts';
import { readLockfile, readRootPackageJson, type Lockfile } from './npm-root.ts';
import { cancelled, npmFailure, npmInstall, npmUninstall, syncScriptPolicy, type OpContext } from './root-ops.ts';
import type { ParsedSpec } from './spec.ts';
import type { InstallResult } from './install-codes.ts';

export interface InstallTarget {
  readonly parsed: ParsedSpec;
  /** The name the package must have (a shipped tarball's pack); otherwise the spec's, or the one npm added. */
  readonly expectName?: string;
  /** The record an update replaces: put back on failure; its consent carries over to the identical artifact only. */
  readonly previous?: PackRecord;
}

export interface InstallManyOptions {
  /** How npm failures name the call ("installing the shipped packs"); `installing SPEC` by default. */
  readonly what?: string;
  /** Examines an admitted pack before it is recorded; if it throws, the whole call is undone. */
  readonly compile?: (root: string, record: PackRecord) => Promise<void>;
}

type Deps = Readonly<Record<string, string>>;

/** The dependency npm saved for a target whose name only its contents say: `file:<path>` or the URL. */
function savedAs(deps: Deps, root: string, parsed: ParsedSpec): string | undefined {
  if (parsed.source === 'tarball-file') {
    const wanted = path.resolve(parsed.npmArg);
    return Object.keys(deps).find((dep) => {
      const spec = deps[dep] ?? '';
      return spec.startsWith('file:') && path.resolve(root, spec.slice('file:'.length)) === wanted;
    });
  }
  return Object.keys(deps).find((dep) => deps[dep] === parsed.npmArg);
}

/**
 * The admission of one installed package: what the ledger records for it, or why it may not be
 * recorded. Every install — a single one, an update, the first run's seeding — passes here.
 */
export async function admitPack(root: string, lock: Lockfile, target: InstallTarget, name: string, installedAt: string): Promise<InstallResult<PackRecord>> {
  const pkg = await readInstalledPackageJson(root, `node_modules/${name}`);
  if (!pkg.ok) return pkg;
  if (pkg.value.name !== name) {
    // A tarball may carry any name inside; a pack that claims another pack's name could pose as it
    // to discovery, so the installed name must be the requested one.
    return fail('install-failed', `The package installed as ${name} calls itself ${pkg.value.name} in its package.json; it was removed again.`);
  }
  const kind = classify(pkg.value, `node_modules/${name}/package.json`);
  if (!kind.ok) return kind;
  const inspected = await inspectClosure(root, lock, name);
  if (!inspected.ok) return inspected;
  const self = inspected.value.closure[0];
  if (!self?.integrity || !self.resolved)
    return fail('install-failed', `The lockfile has no resolved URL and integrity for ${name}, so the artifact cannot be pinned; it was removed again.`);
  const { parsed, previous } = target;
  const base = {
    name,
    version: pkg.value.version,
    spec: parsed.spec,
    resolved: self.resolved,
    integrity: self.integrity,
    installMode: kind.value.mode,
    installedAt,
    source: parsed.source,
    sourceLabel: SOURCE_LABELS[parsed.source],
    scripts: inspected.value.scripts,
    closure: inspected.value.closure,
  } as const;
  // Consent carries over only to the identical artifact (same name, version and integrity).
  const keptTrust = previous?.trust && trustCovers({ ...base, trust: previous.trust }) ? previous.trust : null;
  // Only a sandbox-only pack is active without consent.
  const status: PackInstallStatus = kind.value.mode === 'sandbox-only' ? 'active' : keptTrust && previous?.status === 'active' ? 'active' : 'needs-trust';
  // The use decision (trusted for agents, or revoked) is about the pack, not one artifact: it stays.
  return ok({ ...base, trust: keptTrust, status, ...(previous?.useDecision ? { useDecision: previous.useDecision } : {}) });
}

/** npm-installs every target in one run, admits each, and records them all; answers the records in target order. */
export async function installMany(
  ctx: OpContext,
  ledger: Ledger,
  targets: readonly InstallTarget[],
  options: InstallManyOptions = {},
): Promise<InstallResult<PackRecord[]>> {
  if (targets.length === 0) return ok([]);
  const single = targets.length === 1 ? targets[0] : undefined;
  for (const { parsed, previous } of targets) {
    const known = parsed.name && !previous ? ledger.packs[parsed.name] : undefined;
    if (known) return fail('already-installed', `${known.name}@${known.version} is already installed; update it to change its version.`);
  }
  const before = await readRootPackageJson(ctx.root);
  if (!before.ok) return before;
  const args = targets.map((t) => t.parsed.npmArg);
  ctx.progress({ stage: 'fetching', message: `npm install ${args.join(' ')} (scripts off)` });
  const run = await npmInstall(ctx, args);
  // Cancelled while npm ran (or just after): answer at once; the lock holder rolls the tree back from the journal.
  if (ctx.signal?.aborted) return cancelled(options.what ?? `installing ${targets.map((t) => t.parsed.spec).join(', ')}`);
  if (run.code !== 0) {
    const what = options.what ?? `installing ${targets.map((t) => t.parsed.spec).join(', ')}`;
    return npmFailure(run, what, single ? { registry: ctx.registry, spec: single.parsed.spec } : undefined);
  }

  ctx.progress({ stage: 'classifying', message: 'reading the installed package.json' });
  const after = await readRootPackageJson(ctx.root);
  if (!after.ok) return after;
  const beforeDeps: Deps = before.value.dependencies ?? {};
  const afterDeps: Deps = after.value.dependencies ?? {};
  const updated = new Map(targets.flatMap((t) => (t.previous ? [[t.previous.name, t.previous] as const] : [])));
  /** Puts the tree back as it was: what npm added removed, what it replaced reinstalled (an update's recorded version). */
  const undo = async (): Promise<void> => {
    const added = Object.keys(afterDeps).filter((dep) => !(dep in beforeDeps));
    const changed = Object.keys(afterDeps).filter((dep) => dep in beforeDeps && (beforeDeps[dep] !== afterDeps[dep] || updated.has(dep)));
    if (added.length > 0) await npmUninstall(ctx, added);
    if (changed.length > 0)
      await npmInstall(
        ctx,
        changed.map((dep) => `${dep}@${updated.get(dep)?.version ?? (beforeDeps[dep] as string)}`),
      );
  };

  // A tarball names its package only inside: if it carries the name of a pack already here, npm
  // has just replaced that pack's files. Put the recorded artifact back and refuse.
  const replaced = Object.keys(afterDeps).find((dep) => dep in beforeDeps && beforeDeps[dep] !== afterDeps[dep] && !updated.has(dep));
  if (replaced) {
    await undo();
    const carrier = targets.find((t) => !t.parsed.name && savedAs(afterDeps, ctx.root, t.parsed) === replaced) ?? single;
    const spec = carrier?.parsed.spec ?? targets.map((t) => t.parsed.spec).join(', ');
    return fail('conflict', `${spec} contains ${replaced}, which is already installed; uninstall it first if you mean to replace it.`);
  }

  try {
    const admitted = await admitAll(ctx, targets, beforeDeps, afterDeps);
    if (!admitted.ok) {
      await undo();
      return admitted;
    }
    const records = admitted.value;
    for (const record of records) {
      if (options.compile && record.installMode !== 'register') {
        ctx.progress({ stage: 'compiling', message: 'preparing sandbox modules' });
        await options.compile(ctx.root, record);
      }
    }
    const packs = { ...ledger.packs };
    for (const record of records) packs[record.name] = record;
    const next: Ledger = { ...ledger, packs };
    await writeLedger(ctx.root, next);
    // Recorded: from here the ledger and the tree agree, so a later failure must not undo the tree.
    const policy = await syncScriptPolicy(ctx.root, next);
    return policy.ok ? ok(records) : policy;
  } catch (error) {
    // A pack in the tree but not in the ledger, or recorded but never examined, is a half install.
    await undo();
    const specs = targets.map((t) => t.parsed.spec).join(', ');
    const previous = single?.previous;
    const putBack = previous ? `${previous.name}@${previous.version} was put back` : single ? 'the pack was removed again' : 'the packs were removed again';
    // A full disk is the user's to fix, not a bug: the lock holder then rolls back from the journal what the undo could not.
    if (isDiskFull(error))
      return fail(
        'disk-full',
        `The disk is full: ${specs} could not be recorded after npm installed it (${(error as Error).message}). Free some space, then try again.`,
      );
    return fail('install-failed', `Installing ${specs} failed after npm ran (${String(error)}); ${putBack} and nothing was recorded.`);
  }
}

/** Names each target's installed package and admits it; the first refusal (in target order) answers for the call. */
async function admitAll(ctx: OpContext, targets: readonly InstallTarget[], beforeDeps: Deps, afterDeps: Deps): Promise<InstallResult<PackRecord[]>> {
  const added = Object.keys(afterDeps).filter((dep) => !(dep in beforeDeps));
  const names: string[] = [];
  for (const target of targets) {
    const { parsed, previous, expectName } = target;
    const name = parsed.name ?? previous?.name ?? savedAs(afterDeps, ctx.root, parsed) ?? (targets.length === 1 ? added[0] : undefined);
    if (!name) return fail('install-failed', `npm finished, but no new package appeared in the install root for ${parsed.spec}.`);
    if (expectName !== undefined && name !== expectName) return fail('install-failed', `The tarball for ${expectName} holds ${name}.`);
    names.push(name);
  }
  const lock = await readLockfile(ctx.root);
  if (!lock.ok || !lock.value) return lock.ok ? fail('install-failed', 'npm finished but wrote no lockfile.') : lock;
  const lockfile = lock.value;
  const installedAt = new Date().toISOString();
  const admitted = await Promise.all(targets.map((target, i) => admitPack(ctx.root, lockfile, target, names[i] as string, installedAt)));
  const refused = admitted.find((r) => !r.ok);
  if (refused && !refused.ok) return refused;
  return ok(admitted.flatMap((r) => (r.ok ? [r.value] : [])));
}
