// Finds the package folders of an install root: `<root>/node_modules/<name>` and
// `<root>/node_modules/@scope/<name>`, exactly where npm puts them. A managed root passes the
// ledger's pack names, and then only those folders are looked at; otherwise every package is a
// candidate. Folder names are checked against npm's name rule before they become paths.

import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { PackageNameSchema } from '../../shared/protocol/manifest.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';

export interface PackFolder {
  /** `@scope/name` or `name`, from the folder path. */
  readonly folderName: string;
  /** The folder as found under node_modules (may be a symlink, e.g. npm link). */
  readonly dir: string;
}

export async function checkRoot(root: string): Promise<Result<string, 'root-unreadable'>> {
  try {
    const info = await stat(root);
    if (!info.isDirectory()) return fail('root-unreadable', `The install root ${root} is not a directory.`);
    return ok(await realpath(root));
  } catch (error) {
    return fail('root-unreadable', `The install root ${root} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
}

export async function listPackFolders(rootReal: string, onlyPacks?: ReadonlySet<string>): Promise<Result<PackFolder[], 'root-unreadable'>> {
  const modulesDir = path.join(rootReal, 'node_modules');
  if (onlyPacks) {
    const folders: PackFolder[] = [];
    for (const name of [...onlyPacks].sort()) {
      if (!PackageNameSchema.safeParse(name).success) continue;
      folders.push({ folderName: name, dir: path.join(modulesDir, ...name.split('/')) });
    }
    return ok(folders);
  }
  let top: string[];
  try {
    top = (await readdir(modulesDir)).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return ok([]);
    return fail('root-unreadable', `${modulesDir} cannot be read (${code ?? 'error'}).`);
  }
  const folders: PackFolder[] = [];
  for (const name of top) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      let scoped: string[];
      try {
        scoped = (await readdir(path.join(modulesDir, name))).sort();
      } catch {
        continue;
      }
      for (const child of scoped) {
        const full = `${name}/${child}`;
        if (!child.startsWith('.') && PackageNameSchema.safeParse(full).success) folders.push({ folderName: full, dir: path.join(modulesDir, name, child) });
      }
      continue;
    }
    if (PackageNameSchema.safeParse(name).success) folders.push({ folderName: name, dir: path.join(modulesDir, name) });
  }
  return ok(folders);
}
