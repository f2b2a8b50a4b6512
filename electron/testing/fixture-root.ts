// Test support: install roots shaped like real npm trees, written to a temp dir per test so no
// megabyte fixtures are committed and symlinks can point wherever an attack needs them to.

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Files of one package, relative to its directory; `package.json` may be an object. */
export type PackageFiles = Readonly<Record<string, string | object>>;

export interface FixtureRoot {
  /** The temp directory holding the root (and anything an attack places beside it). */
  readonly base: string;
  /** The install root. */
  readonly root: string;
  /** Write a package at `<root>/<relDir>` (e.g. `node_modules/x`). Returns its absolute path. */
  addPackage(relDir: string, files: PackageFiles): Promise<string>;
  /** A pack at `node_modules/<name>` whose single module bundles `npmName` (a package, or a package's subpath). */
  addPack(name: string, npmName: string): Promise<string>;
  dispose(): Promise<void>;
}

export async function writePackage(dir: string, files: PackageFiles): Promise<string> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

/** The package an `npm` field names: `csv-parse` for `csv-parse/sync`, `@s/p` for `@s/p/x`. */
const dependencyOf = (npmName: string): string =>
  npmName
    .split('/')
    .slice(0, npmName.startsWith('@') ? 2 : 1)
    .join('/');

export async function createFixtureRoot(): Promise<FixtureRoot> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sp-compiler-')));
  const root = path.join(base, 'root');
  await fs.mkdir(path.join(root, 'node_modules'), { recursive: true });
  return {
    base,
    root,
    addPackage: (relDir, files) => writePackage(path.join(root, relDir), files),
    addPack: (name, npmName) =>
      writePackage(path.join(root, 'node_modules', name), {
        'package.json': {
          name,
          version: '1.0.0',
          dependencies: { [dependencyOf(npmName)]: '*' },
          nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', npm: npmName }] },
        },
      }),
    dispose: () => fs.rm(base, { recursive: true, force: true }),
  };
}
