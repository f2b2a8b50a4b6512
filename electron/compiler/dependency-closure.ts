// The directories one pack's npm modules may be bundled from: the pack's own package directory
// and the installed packages of its dependency closure. The install root is the app's data
// directory (saved workflows, the npm userconfig, the ledger, npm's cache), so "inside the root"
// is far too wide a fence for code an untrusted, sandbox-only pack controls; see bundle.ts for
// how the fence is applied to every file esbuild reads.
//
// Invariant: members are found as Node and npm resolve them, by real path, never above the root;
// a dependency installed anywhere but a `node_modules/<name>` folder inside the root refuses the
// whole compile; a file is allowed only when the nearest package folder containing it is a member.

import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { fail, ok, type Result } from '../../shared/protocol/index.ts';
import { isInside, nodeLookup } from './package-locator.ts';

export interface DependencyClosure {
  /** Real, absolute package directories, the pack's own first. */
  readonly dirs: ReadonlySet<string>;
  /** The members as root-relative POSIX paths, sorted: part of the compile cache's lookup name. */
  readonly relDirs: readonly string[];
  /** True when `realFile` (a real, absolute path) belongs to a member package. */
  allows(realFile: string): boolean;
}

/** More members than this is not a pack a sandbox module comes from; refuse instead of walking on. */
export const MAX_CLOSURE_PACKAGES = 5_000;
const MANIFEST_MAX_BYTES = 1024 * 1024;
// npm's own rule allows legacy upper-case names; what matters here is that a name is one or two
// plain path segments that cannot climb (no ".", "..", slashes beyond the scope, or separators).
const DEPENDENCY_NAME = /^(?:@[A-Za-z0-9][\w.~-]*\/)?[A-Za-z0-9][\w.~-]*$/;

const DependencyMap = z.record(z.string(), z.unknown());
const ManifestSchema = z.object({
  name: z.string().max(214).optional().catch(undefined),
  dependencies: DependencyMap.optional().catch(undefined),
  optionalDependencies: DependencyMap.optional().catch(undefined),
  peerDependencies: DependencyMap.optional().catch(undefined),
});

function segmentsOf(rootReal: string, real: string): string[] {
  const rel = path.relative(rootReal, real);
  return rel === '' ? [] : rel.split(path.sep);
}

/** True for `<...>/node_modules/<name>` and `<...>/node_modules/@scope/<name>` (root-relative). */
export function isPackageFolder(rootReal: string, real: string): boolean {
  const segs = segmentsOf(rootReal, real);
  const n = segs.length;
  const last = segs[n - 1];
  if (last === undefined || last.startsWith('.') || last.startsWith('@') || last === 'node_modules') return false;
  if (segs[n - 2] === 'node_modules') return true;
  return n >= 3 && (segs[n - 2] ?? '').startsWith('@') && segs[n - 3] === 'node_modules';
}

const posix = (rootReal: string, real: string): string => segmentsOf(rootReal, real).join('/');

/** Names a package.json declares as installed dependencies; an unreadable or odd manifest declares none. */
async function declaredDependencies(dir: string): Promise<{ name?: string; deps: string[] }> {
  let raw: string;
  try {
    const file = path.join(dir, 'package.json');
    const info = await fs.lstat(file);
    if (!info.isFile() || info.size > MANIFEST_MAX_BYTES) return { deps: [] };
    raw = await fs.readFile(file, 'utf8');
  } catch {
    return { deps: [] };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { deps: [] };
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) return { deps: [] };
  const m = parsed.data;
  const names = new Set<string>();
  for (const map of [m.dependencies, m.optionalDependencies, m.peerDependencies]) {
    for (const name of Object.keys(map ?? {})) if (DEPENDENCY_NAME.test(name)) names.add(name);
  }
  return { ...(m.name !== undefined ? { name: m.name } : {}), deps: [...names].sort() };
}

/**
 * The closure, precisely: start with the pack's real directory. For every package P in it, read
 * P's package.json and take the names in `dependencies`, `optionalDependencies` and
 * `peerDependencies` (npm installs all three for an installed package; dev dependencies are never
 * installed for one). Each name is looked up the way Node and npm resolve it from P's real
 * directory: `P/node_modules/<name>`, then each enclosing `node_modules/<name>` up to the root,
 * never above it. A name that is not installed is left out (optional and peer dependencies may be
 * absent; an import of it then fails to resolve). A name that is installed is added by its real
 * path, which must be inside the root and must look like what npm creates: a folder
 * `node_modules/<name>` or `node_modules/@scope/<name>`. A link anywhere else (a `file:`
 * dependency pointing at the root, at `workflows/`, ...) refuses the whole compile. Cycles are
 * fine; the walk visits each directory once.
 *
 * A file is then allowed (`allows`) when the nearest package folder that contains it is a closure
 * member: walking up from the file, the first directory that is either a member (allowed) or a
 * package folder that is not one (refused — a nested package the closure does not reach) decides.
 * A file that meets neither before the root, or that sits loose in a `node_modules` folder, is
 * refused.
 */
export async function dependencyClosure(rootReal: string, packReal: string, npmName: string): Promise<Result<DependencyClosure, 'npm-bundle-failed'>> {
  if (!isPackageFolder(rootReal, packReal)) {
    return fail('npm-bundle-failed', 'The pack directory is not a package folder under node_modules of the install root.');
  }
  const dirs = new Set<string>([packReal]);
  const queue = [packReal];
  for (let i = 0; i < queue.length; i++) {
    const dir = queue[i] as string;
    const { name: ownerName, deps } = await declaredDependencies(dir);
    const owner = ownerName ?? posix(rootReal, dir);
    for (const dep of deps) {
      const found = await nodeLookup(rootReal, dir, dep);
      // Missing (optional, peer, or simply not installed) and links out of the root add nothing:
      // nothing outside the root is ever bundled, and an import of either fails by itself.
      if (found.kind !== 'found' || dirs.has(found.real)) continue;
      if (!isPackageFolder(rootReal, found.real)) {
        const rel = posix(rootReal, found.real);
        const where = rel === '' ? 'the install root itself' : rel;
        return fail(
          'npm-bundle-failed',
          `${npmName} cannot be bundled: ${owner}'s dependency ${dep} resolves to ${where}, not a package folder under node_modules.`,
        );
      }
      if (dirs.size >= MAX_CLOSURE_PACKAGES) {
        return fail('npm-bundle-failed', `${npmName} cannot be bundled: its dependencies add up to more than ${MAX_CLOSURE_PACKAGES} packages.`);
      }
      dirs.add(found.real);
      queue.push(found.real);
    }
  }
  return ok({
    dirs,
    relDirs: [...dirs].map((d) => posix(rootReal, d)).sort(),
    allows(realFile: string): boolean {
      if (!isInside(rootReal, realFile) || realFile === rootReal) return false;
      for (let dir = path.dirname(realFile); dir !== rootReal && isInside(rootReal, dir); dir = path.dirname(dir)) {
        if (dirs.has(dir)) return true;
        if (path.basename(dir) === 'node_modules' || isPackageFolder(rootReal, dir)) return false;
      }
      return false;
    },
  });
}
