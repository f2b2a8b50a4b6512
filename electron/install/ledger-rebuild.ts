// A new ledger from what the managed root holds, for when the ledger is damaged and its backup is
// gone too: every dependency of the root's package.json that is installed and pinned by the
// lockfile is inspected exactly as an install inspects it (classified from its installed
// package.json, its closure and scripts read from the files, digests taken). Consent cannot be
// recovered from the tree, so no record is trusted: a sandbox-only pack is active again (it runs
// no host code, as at install), anything with host code or scripts waits for trust again. What
// cannot be inspected is left unrecorded, and reconcile then removes it from the tree as a stray.
// The same inspection records again a pack a restored backup (one generation old) does not know.

import { SOURCE_LABELS, type InstallSource, type Ledger, type PackRecord } from '../../shared/protocol/ledger.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { classify, inspectClosure, readInstalledPackageJson } from './inspect.ts';
import { emptyLedger } from './ledger-store.ts';
import { readLockfile, readRootPackageJson, type Lockfile } from './npm-root.ts';
import type { InstallResult } from './install-codes.ts';

function sourceOf(saved: string): InstallSource {
  if (saved.startsWith('file:')) return 'tarball-file';
  if (/^https?:\/\//.test(saved)) return 'tarball-url';
  return 'registry';
}

/** The registry a registry pack's lockfile URL came from (`<registry><name>/-/<file>.tgz`), if it has that shape. */
function registryOf(name: string, resolved: string): string | undefined {
  const at = resolved.indexOf(`${name}/-/`);
  return at > 0 ? resolved.slice(0, at) : undefined;
}

/** The record an install would have made for the dependency `name` (saved in package.json as `saved`), read from its files; undefined when it cannot be inspected. */
async function recordFromTree(root: string, lockfile: Lockfile, name: string, saved: string): Promise<PackRecord | undefined> {
  const pkg = await readInstalledPackageJson(root, `node_modules/${name}`);
  if (!pkg.ok || pkg.value.name !== name) return undefined;
  const kind = classify(pkg.value, `node_modules/${name}/package.json`);
  if (!kind.ok) return undefined;
  const inspected = await inspectClosure(root, lockfile, name);
  const self = inspected.ok ? inspected.value.closure[0] : undefined;
  if (!inspected.ok || !self?.integrity || !self.resolved) return undefined;
  const source = sourceOf(saved);
  return {
    name,
    version: pkg.value.version,
    spec: source === 'registry' ? `${name}@${pkg.value.version}` : saved,
    resolved: self.resolved,
    integrity: self.integrity,
    installMode: kind.value.mode,
    installedAt: new Date().toISOString(),
    source,
    sourceLabel: SOURCE_LABELS[source],
    scripts: inspected.value.scripts,
    closure: inspected.value.closure,
    trust: null,
    status: kind.value.mode === 'sandbox-only' ? 'active' : 'needs-trust',
  };
}

const statusText = (record: PackRecord): string => (record.status === 'active' ? 'active' : 'needs your trust again: consent is not recoverable');

async function treeFiles(root: string): Promise<InstallResult<{ deps: [string, string][]; lockfile: Lockfile | undefined }>> {
  const rootPkg = await readRootPackageJson(root);
  if (!rootPkg.ok) return rootPkg;
  const lock = await readLockfile(root);
  if (!lock.ok) return lock;
  const deps = Object.entries(rootPkg.value.dependencies ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return ok({ deps, lockfile: lock.value });
}

export async function rebuildLedgerFromTree(root: string, fallbackRegistry: string): Promise<InstallResult<{ ledger: Ledger; summary: string }>> {
  const files = await treeFiles(root);
  if (!files.ok) return files;
  const { deps, lockfile } = files.value;
  if (!lockfile && deps.length > 0)
    return fail('root-unreadable', `The install root ${root} has no package-lock.json, so its ledger cannot be rebuilt from it.`);
  const packs: Record<string, PackRecord> = {};
  const lines: string[] = [];
  let registry: string | undefined;
  for (const [name, saved] of deps) {
    const record = lockfile ? await recordFromTree(root, lockfile, name, saved) : undefined;
    if (!record) {
      lines.push(`${name} could not be inspected, so it is not recorded (it is removed from the tree)`);
      continue;
    }
    if (record.source === 'registry') registry ??= registryOf(name, record.resolved);
    packs[name] = record;
    lines.push(`${name}@${record.version} (${statusText(record)})`);
  }
  const ledger: Ledger = { ...emptyLedger(registry ?? fallbackRegistry), packs };
  return ok({ ledger, summary: lines.length ? `${lines.join('; ')}.` : 'no packs were installed.' });
}

/**
 * After the ledger was restored from its backup (one generation old): record again, from their
 * files, the packs the root's package.json lists but the backup does not know — the install that
 * made the newest generation — except `skip` (what an interrupted operation added, which its
 * journal rolls back). Answers the ledger and one sentence per pack recorded.
 */
export async function adoptUnrecorded(root: string, ledger: Ledger, skip: ReadonlySet<string>): Promise<InstallResult<{ ledger: Ledger; adopted: string[] }>> {
  const files = await treeFiles(root);
  if (!files.ok) return files;
  const { deps, lockfile } = files.value;
  const packs = { ...ledger.packs };
  const adopted: string[] = [];
  for (const [name, saved] of deps) {
    if (name in packs || skip.has(name) || !lockfile) continue;
    const record = await recordFromTree(root, lockfile, name, saved);
    if (!record) continue;
    packs[name] = record;
    adopted.push(
      `${name}@${record.version} is in the install root but not in the ledger's backup; it was recorded again from its files (${statusText(record)}).`,
    );
  }
  return ok({ ledger: { ...ledger, packs }, adopted });
}
