// What discovery may list in a managed root. The catalog calls this before walking node_modules:
// `undefined` means the root has no ledger (a development checkout or a fixture tree, discovered as
// it stands); otherwise only ledger packs whose status is active AND whose installed version and
// lockfile integrity are the recorded ones — so a pack mid-update, or replaced behind the ledger's
// back (another tarball with the same name and version), is not active.

import { readLedger } from './ledger-store.ts';
import { readInstalledPackageJson } from './inspect.ts';
import { readLockfile } from './npm-root.ts';

export async function activePackNames(root: string): Promise<ReadonlySet<string> | undefined> {
  const read = await readLedger(root);
  // A damaged ledger still marks a managed root: nothing is active until it is repaired.
  if (!read.ok) return new Set();
  if (!read.value) return undefined;
  const lock = await readLockfile(root);
  const locked = lock.ok ? lock.value?.packages : undefined;
  const active = new Set<string>();
  for (const record of Object.values(read.value.packs)) {
    if (record.status !== 'active') continue;
    if (locked?.[`node_modules/${record.name}`]?.integrity !== record.integrity) continue;
    const pkg = await readInstalledPackageJson(root, `node_modules/${record.name}`);
    if (pkg.ok && pkg.value.name === record.name && pkg.value.version === record.version) active.add(record.name);
  }
  return active;
}
