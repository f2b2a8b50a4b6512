// Reads the exact artifact npm put on disk — never registry metadata — and says what it is: the
// install mode from the installed package.json, the pack's installed closure as the lockfile
// pins it, every lifecycle script npm would run for the pack and its dependencies, and a digest
// of each package directory so a later rebuild can prove it runs against the same files.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { INSTALL_LIFECYCLE_SCRIPTS, NodetoolManifestSchema, PackageJsonSchema, type PackageJson } from '../../shared/protocol/manifest.ts';
import type { ClosureEntry, InstallMode, LifecycleScript } from '../../shared/protocol/ledger.ts';
import { formatIssues, parseWith } from '../../shared/protocol/parse.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import type { Lockfile } from './npm-root.ts';
import type { InstallResult } from './install-codes.ts';

/** Scripts npm runs for an installed registry package (prepare runs only for git/folder sources, which we refuse, but is listed when present). */
const EVENTS: readonly string[] = INSTALL_LIFECYCLE_SCRIPTS;

export async function readInstalledPackageJson(root: string, relPath: string): Promise<InstallResult<PackageJson>> {
  const file = path.join(root, relPath, 'package.json');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return fail('package-json-invalid', `${file} could not be read as JSON: ${(error as Error).message}`);
  }
  return parseWith(PackageJsonSchema, json, file);
}

export interface Classification {
  readonly mode: InstallMode;
}

/** sandbox-only, register or hybrid from the installed package.json; not-a-pack without a nodetool field. */
export function classify(pkg: PackageJson, file: string): InstallResult<Classification> {
  if (pkg.nodetool === undefined) {
    return fail('not-a-pack', `${pkg.name}@${pkg.version} is not a Sandbox Pack: its package.json has no "nodetool" field, so it was removed again.`);
  }
  const manifest = NodetoolManifestSchema.safeParse(pkg.nodetool);
  if (!manifest.success) return fail('manifest-invalid', `${file}: nodetool: ${formatIssues(manifest.error.issues)}; the package was removed again.`);
  const hasModules = (manifest.data.sandboxModules?.length ?? 0) > 0;
  const hasRegister = manifest.data.register !== undefined;
  if (hasModules && hasRegister) return ok({ mode: 'hybrid' });
  if (hasRegister) return ok({ mode: 'register' });
  if (hasModules) return ok({ mode: 'sandbox-only' });
  return fail('manifest-invalid', `${file}: the nodetool manifest declares neither sandboxModules nor register; the package was removed again.`);
}

/** Where node would find `dep` from the package at `from` (lockfile keys, e.g. node_modules/a/node_modules/b). */
function resolveInLockfile(lock: Lockfile, from: string, dep: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${dep}` : `${base}/node_modules/${dep}`;
    if (lock.packages[candidate]) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

/** The pack's installed closure: the pack itself and every package it reaches, in lockfile order. */
export function closurePaths(lock: Lockfile, packName: string): string[] {
  const start = `node_modules/${packName}`;
  if (!lock.packages[start]) return [];
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length) {
    const current = queue.shift() as string;
    const entry = lock.packages[current];
    if (!entry) continue;
    const deps = { ...(entry.dependencies ?? {}), ...(entry.optionalDependencies ?? {}), ...(entry.peerDependencies ?? {}) };
    for (const dep of Object.keys(deps)) {
      const found = resolveInLockfile(lock, current, dep);
      if (found && !seen.has(found)) {
        seen.add(found);
        queue.push(found);
      }
    }
  }
  return [...seen];
}

/** sha256 over sorted relative paths and contents of a package dir, skipping nested node_modules; symlinks hash their target text. */
export async function treeDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  async function walk(rel: string): Promise<void> {
    const entries = (await readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (rel === '' && entry.name === 'node_modules') continue;
      const full = path.join(dir, relPath);
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        hash.update(`L ${relPath}\0`);
      } else if (info.isDirectory()) {
        hash.update(`D ${relPath}\0`);
        await walk(relPath);
      } else if (info.isFile()) {
        hash.update(`F ${relPath} ${info.mode & 0o111 ? 'x' : '-'}\0`);
        hash.update(await readFile(full));
        hash.update('\0');
      }
    }
  }
  await walk('');
  return hash.digest('hex');
}

export interface InspectedClosure {
  readonly closure: ClosureEntry[];
  readonly scripts: LifecycleScript[];
}

/** Lifecycle scripts of one installed package, including npm's implicit `node-gyp rebuild` for a binding.gyp. */
function scriptsOf(pkg: PackageJson, relPath: string, dir: string, own: boolean, lockSaysScript: boolean): LifecycleScript[] {
  const found: LifecycleScript[] = [];
  const declared = pkg.scripts ?? {};
  for (const event of EVENTS) {
    const command = declared[event];
    if (typeof command === 'string') found.push({ package: pkg.name, version: pkg.version, path: relPath, event, command, own });
  }
  const gypfile = (pkg as Record<string, unknown>).gypfile;
  if (declared.install === undefined && declared.preinstall === undefined && gypfile !== false && existsSync(path.join(dir, 'binding.gyp'))) {
    found.push({ package: pkg.name, version: pkg.version, path: relPath, event: 'install', command: 'node-gyp rebuild (implied by binding.gyp)', own });
  }
  if (found.length === 0 && lockSaysScript) {
    found.push({
      package: pkg.name,
      version: pkg.version,
      path: relPath,
      event: 'install',
      command: '(the lockfile records an install script this package does not show)',
      own,
    });
  }
  return found;
}

export async function inspectClosure(root: string, lock: Lockfile, packName: string): Promise<InstallResult<InspectedClosure>> {
  const paths = closurePaths(lock, packName);
  if (paths.length === 0) return fail('install-failed', `npm finished but ${packName} is not in the root's lockfile.`);
  const closure: ClosureEntry[] = [];
  const scripts: LifecycleScript[] = [];
  for (const relPath of paths) {
    const entry = lock.packages[relPath];
    if (!entry) continue;
    if (entry.link) return fail('install-failed', `${relPath} is a link to a folder outside the install root, which is not allowed.`);
    const pkg = await readInstalledPackageJson(root, relPath);
    if (!pkg.ok) return pkg;
    const dir = path.join(root, relPath);
    closure.push({
      name: pkg.value.name,
      version: pkg.value.version,
      path: relPath,
      ...(entry.resolved ? { resolved: entry.resolved } : {}),
      ...(entry.integrity ? { integrity: entry.integrity } : {}),
      hasInstallScript: entry.hasInstallScript === true,
      treeDigest: await treeDigest(dir),
    });
    scripts.push(...scriptsOf(pkg.value, relPath, dir, relPath === `node_modules/${packName}`, entry.hasInstallScript === true));
  }
  return ok({ closure, scripts });
}
