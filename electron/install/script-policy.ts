// The root's allowScripts policy, in the key form npm 11 actually matches: npm does not match a
// key by package name alone but parses it with npm-package-arg and compares by source
// (`scriptPolicyKey` gives the form for each kind of node).
//
// Invariant: the policy says exactly what the ledger consents to (`syncScriptPolicy`), and a node
// whose key npm would not match fails closed: its scripts count as unreviewed and are refused.

import path from 'node:path';
import type { Ledger, PackRecord } from '../../shared/protocol/ledger.ts';
import { trustCovers } from '../../shared/protocol/ledger.ts';
import { readLockfile, readRootPackageJson, writeAllowScripts } from './npm-root.ts';
import type { InstallResult } from './install-codes.ts';

export interface PolicySubject {
  readonly name: string;
  readonly version: string;
  /** The lockfile's `resolved`, as written (a `file:` path is relative to the root). */
  readonly resolved?: string | undefined;
}

/** A spec npm resolves against the registry (a version, range or tag), not a URL, path or git source. */
function isRegistrySpec(spec: string): boolean {
  return !/^(?:[a-z][a-z0-9+.-]*:|[./~\\])/i.test(spec) && !spec.includes('/');
}

/** Is `resolved` this registry's tarball URL for exactly `name@version` (`<registry>/<name>/-/<base>-<version>.tgz`)? */
function isRegistryTarball(resolved: string, registry: string, subject: PolicySubject): boolean {
  const prefix = registry.endsWith('/') ? registry : `${registry}/`;
  if (!resolved.startsWith(prefix)) return false;
  const rest = resolved.slice(prefix.length).replace(/%2f/gi, '/');
  const base = subject.name.slice(subject.name.lastIndexOf('/') + 1);
  return rest === `${subject.name}/-/${base}-${subject.version}.tgz`;
}

/**
 * The allowScripts key npm matches for one installed package (isScriptAllowed in
 * @npmcli/arborist/lib/script-allowed.js; the same form `npm install-scripts approve` writes,
 * versionedKeyFor in npm's lib/utils/allow-scripts-writer.js):
 *   - a registry node: `name@version`, where name and version come from its registry tarball URL
 *     and the node is a registry node only if every dependency edge into it is a registry spec;
 *   - a tarball file (`file:` in the lockfile, relative to the root): `file:<absolute path>`, the
 *     node's `resolved` as arborist loads it;
 *   - a remote tarball URL, and a git source: the lockfile's `resolved` itself.
 * A `name@version` key written for a tarball never matches, so with --strict-allow-scripts every
 * script of such a pack (allowed or denied) counted as unreviewed and the rebuild was refused.
 *
 * `declaredSpec` is the root package.json's spec for a top-level package: a tarball URL there
 * makes the node a remote one even when the URL points into the registry. A nested dependency
 * declared by a registry-shaped URL gets `name@version`, which npm does not match: the strict
 * check then refuses (fails closed).
 */
export function scriptPolicyKey(root: string, registry: string, subject: PolicySubject, declaredSpec?: string): string {
  const { resolved } = subject;
  const pin = `${subject.name}@${subject.version}`;
  if (!resolved) return pin; // npm then knows no version and refuses an allow: fails closed
  if (resolved.startsWith('file:')) return `file:${path.resolve(root, resolved.slice('file:'.length))}`;
  if (/^https?:\/\//i.test(resolved)) {
    const registryNode = (declaredSpec === undefined || isRegistrySpec(declaredSpec)) && isRegistryTarball(resolved, registry, subject);
    return registryNode ? pin : resolved;
  }
  return resolved;
}

/**
 * Make the root's allowScripts policy say exactly what the ledger consents to: an allow for the
 * key of each closure package (with scripts) of a trusted pack, a denial for the key of every other
 * package with scripts, so the strict check sees every package reviewed and skips the denied ones.
 */
export async function syncScriptPolicy(root: string, ledger: Ledger, extraAllowed: readonly PackRecord[] = []): Promise<InstallResult<void>> {
  const rootPkg = await readRootPackageJson(root);
  if (!rootPkg.ok) return rootPkg;
  const declared = rootPkg.value.dependencies ?? {};
  const keyAt = (entryPath: string, subject: PolicySubject): string => {
    const top = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(entryPath)?.[1];
    return scriptPolicyKey(root, ledger.registry, subject, top === undefined ? undefined : declared[top]);
  };
  const recordKeys = (record: PackRecord): string[] =>
    record.scripts.map((script) => {
      const entry = record.closure.find((c) => c.path === script.path);
      return keyAt(script.path, { name: script.package, version: script.version, resolved: entry?.resolved });
    });

  const trusted = [...Object.values(ledger.packs).filter((r) => r.installMode !== 'sandbox-only' && trustCovers(r)), ...extraAllowed];
  const allowed = new Set(trusted.flatMap(recordKeys));
  const denied = new Set<string>();
  const lock = await readLockfile(root);
  if (lock.ok && lock.value) {
    for (const [entryPath, entry] of Object.entries(lock.value.packages)) {
      if (entryPath === '' || !entry.hasInstallScript) continue;
      const name = entryPath.slice(entryPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const key = keyAt(entryPath, { name, version: entry.version ?? '', resolved: entry.resolved });
      if (!allowed.has(key)) denied.add(key);
    }
  }
  for (const record of Object.values(ledger.packs)) for (const key of recordKeys(record)) if (!allowed.has(key)) denied.add(key);
  return writeAllowScripts(root, [...allowed], [...denied]);
}
