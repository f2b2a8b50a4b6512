// Finds the directory of the npm package a pack's manifest names, the way Node would (the pack's
// own node_modules first, then each enclosing node_modules up to the install root, where npm
// hoists), but never beyond the install root: the app's own node_modules must not leak into a
// guest bundle. The name is untrusted manifest data, so it must be a plain npm package name
// (no relative or absolute paths; a manifest's subpath is split off first, by parseNpmField, and
// judged in package-exports.ts) and every hit is checked by its real path.
// Being found is not enough to be bundled: the package must also be a member of the pack's
// dependency closure (dependency-closure.ts), which uses the same lookup.

import fs from 'node:fs/promises';
import path from 'node:path';
import { PackageNameSchema, fail, ok, type Result } from '../../shared/protocol/index.ts';

export interface LocatedPackage {
  /** Real path of the package directory, inside the install root. */
  readonly dir: string;
}

/** True when `child` is `parent` or lies below it (both real, absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function realpathOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fs.realpath(p);
  } catch {
    return undefined;
  }
}

export type LookupResult = { readonly kind: 'found'; readonly real: string } | { readonly kind: 'escapes' } | { readonly kind: 'missing' };

/**
 * Node's lookup of package `name` from `fromReal` (a real directory inside the root): the nearest
 * `node_modules/<name>` walking up, stopping at the root. The nearest hit is the one Node would
 * use; if its real path leaves the root the answer is `escapes`, never a farther copy.
 */
export async function nodeLookup(rootReal: string, fromReal: string, name: string): Promise<LookupResult> {
  for (let dir = fromReal; isInside(rootReal, dir); dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'node_modules') {
      const real = await realpathOrUndefined(path.join(dir, 'node_modules', ...name.split('/')));
      if (real !== undefined) return isInside(rootReal, real) ? { kind: 'found', real } : { kind: 'escapes' };
    }
    if (dir === rootReal) break;
  }
  return { kind: 'missing' };
}

export async function locatePackage(
  rootReal: string,
  packDir: string,
  packageName: string,
): Promise<Result<LocatedPackage & { readonly packReal: string }, 'npm-bundle-failed'>> {
  if (!PackageNameSchema.safeParse(packageName).success) {
    return fail('npm-bundle-failed', `"${packageName}" is not an npm package name; the "npm" field must name a dependency, not a path.`);
  }
  const packReal = await realpathOrUndefined(packDir);
  if (packReal === undefined || !isInside(rootReal, packReal)) {
    return fail('npm-bundle-failed', `The pack directory is not inside the install root.`);
  }
  const found = await nodeLookup(rootReal, packReal, packageName);
  if (found.kind === 'found') return ok({ dir: found.real, packReal });
  if (found.kind === 'escapes') return fail('npm-bundle-failed', `${packageName} resolves through a symbolic link to a place outside the install root.`);
  return fail('npm-bundle-failed', `${packageName} is not installed in the pack's node_modules or the install root; add it to the pack's dependencies.`);
}
