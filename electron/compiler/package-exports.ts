// Whether a subpath named in a manifest's `npm` field ("csv-parse/browser/esm/sync") is one its
// package publishes, decided before anything is bundled so the skip reason can say exactly why.
// With an `exports` map, Node's algorithm (PACKAGE_EXPORTS_RESOLVE) under the compiler's own
// conditions (browser, import, module, default; build-options.ts) picks the target; a target must
// be `./`-relative with no ".", ".." or node_modules segment and no percent-encoding, so it names a
// file of the package itself (Node refuses the same targets). Without `exports`, the subpath must
// name a file or folder inside the package. esbuild then resolves the same specifier for real, and
// the compiler re-checks the real path of the file it used (npm-compiler.ts): a symlink inside the
// package cannot lead the entry out of it. The package.json is untrusted: bounded, parsed from
// unknown, and nothing here throws.

import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { fail, ok, type NpmTarget, type Result } from '../../shared/protocol/index.ts';
import { RESOLVE_CONDITIONS } from './build-options.ts';

const MANIFEST_MAX_BYTES = 1024 * 1024;
const MAX_DEPTH = 32;
const SHOWN_KEYS = 8;
const EXTENSIONS = ['', '.mjs', '.js', '.cjs', '.json'];

/** How the subpath reaches a file: through `exports` (with the chosen target) or as a plain file path. */
export type SubpathRoute = { readonly via: 'exports'; readonly target: string } | { readonly via: 'files' };

type TargetOutcome = { readonly kind: 'target'; readonly target: string } | { readonly kind: 'null' } | { readonly kind: 'invalid'; readonly target: string };

const ManifestSchema = z.looseObject({ exports: z.unknown().optional() });

async function readExportsField(dir: string): Promise<{ readonly has: boolean; readonly value?: unknown }> {
  try {
    const file = path.join(dir, 'package.json');
    const info = await fs.lstat(file);
    if (!info.isFile() || info.size > MANIFEST_MAX_BYTES) return { has: false };
    const parsed = ManifestSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
    if (!parsed.success || parsed.data.exports === undefined) return { has: false };
    return { has: true, value: parsed.data.exports };
  } catch {
    return { has: false };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `exports` field as a map of subpath keys, or undefined when Node would call it invalid (mixed "." and condition keys). */
function subpathMap(field: unknown): Record<string, unknown> | undefined {
  if (!isRecord(field)) return { '.': field };
  const keys = Object.keys(field);
  const dotted = keys.filter((key) => key.startsWith('.')).length;
  if (dotted === 0) return { '.': field };
  return dotted === keys.length ? field : undefined;
}

/** Node's PATTERN_KEY_COMPARE: true when `key` is a better (more specific) pattern than `best`. */
function betterPattern(best: string, key: string): boolean {
  const baseBest = best.indexOf('*');
  const baseKey = key.indexOf('*');
  if (baseKey !== baseBest) return baseKey > baseBest;
  return key.length > best.length;
}

function matchKey(map: Record<string, unknown>, subpath: string): { readonly value: unknown; readonly match?: string } | undefined {
  if (Object.hasOwn(map, subpath) && !subpath.includes('*')) return { value: map[subpath] };
  let best: { key: string; match: string } | undefined;
  for (const key of Object.keys(map)) {
    const star = key.indexOf('*');
    if (star === -1 || key.indexOf('*', star + 1) !== -1) continue;
    const base = key.slice(0, star);
    const trailer = key.slice(star + 1);
    if (!subpath.startsWith(base) || subpath === base) continue;
    if (trailer !== '' && !(subpath.endsWith(trailer) && subpath.length >= key.length)) continue;
    if (best === undefined || betterPattern(best.key, key)) best = { key, match: subpath.slice(base.length, subpath.length - trailer.length) };
  }
  return best === undefined ? undefined : { value: map[best.key], match: best.match };
}

/** A target names a file of the package: `./` first, then no ".", "..", node_modules or encoded segment. */
function confinedTarget(target: string): boolean {
  if (!target.startsWith('./') || /%|\\/.test(target)) return false;
  return target
    .slice(2)
    .split('/')
    .every((seg) => seg !== '.' && seg !== '..' && seg.toLowerCase() !== 'node_modules');
}

function resolveTarget(value: unknown, match: string | undefined, conditions: readonly string[], depth: number): TargetOutcome | undefined {
  if (depth > MAX_DEPTH) return { kind: 'invalid', target: '(conditions nested too deeply)' };
  if (typeof value === 'string') {
    const target = match === undefined ? value : value.replaceAll('*', match);
    return confinedTarget(target) ? { kind: 'target', target } : { kind: 'invalid', target };
  }
  if (value === null) return { kind: 'null' };
  if (Array.isArray(value)) {
    // Node tries each fallback in turn, passing over invalid ones; the last failure stands.
    let last: TargetOutcome | undefined;
    for (const item of value) {
      const outcome = resolveTarget(item, match, conditions, depth + 1);
      if (outcome === undefined) continue;
      if (outcome.kind === 'invalid') {
        last = outcome;
        continue;
      }
      return outcome;
    }
    return last;
  }
  if (isRecord(value)) {
    for (const [condition, inner] of Object.entries(value)) {
      if (condition !== 'default' && !conditions.includes(condition)) continue;
      const outcome = resolveTarget(inner, match, conditions, depth + 1);
      if (outcome !== undefined) return outcome;
    }
    return undefined;
  }
  return { kind: 'invalid', target: String(value) };
}

function listedKeys(map: Record<string, unknown>): string {
  const keys = Object.keys(map).filter((key) => map[key] !== null);
  const shown = keys.slice(0, SHOWN_KEYS).join(', ');
  return keys.length > SHOWN_KEYS ? `${shown} and ${keys.length - SHOWN_KEYS} more` : shown;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks that `target.subpath` is published by the package at `dir` (its real directory). `field`
 * is the manifest's text, for messages.
 */
export async function checkSubpath(
  dir: string,
  field: string,
  target: NpmTarget & { readonly subpath: string },
): Promise<Result<SubpathRoute, 'npm-bundle-failed'>> {
  const { packageName, subpath } = target;
  const exportsField = await readExportsField(dir);
  if (!exportsField.has) {
    const file = path.join(dir, ...subpath.slice(2).split('/'));
    for (const ext of EXTENSIONS) if (await exists(`${file}${ext}`)) return ok({ via: 'files' });
    return fail(
      'npm-bundle-failed',
      `${field}: ${packageName} has no file or folder at ${subpath} (it has no "exports" map, so a subpath names a file inside the package).`,
    );
  }
  const map = subpathMap(exportsField.value);
  if (map === undefined) {
    return fail('npm-bundle-failed', `${field}: the "exports" map of ${packageName} mixes subpaths with conditions, which Node refuses; it exports nothing.`);
  }
  const matched = matchKey(map, subpath);
  if (matched === undefined) {
    const listed = listedKeys(map);
    return fail(
      'npm-bundle-failed',
      `${field}: ${packageName} does not export ${subpath}; its package.json "exports" lists ${listed === '' ? 'nothing' : listed}.`,
    );
  }
  const conditions = [...RESOLVE_CONDITIONS];
  const outcome = resolveTarget(matched.value, matched.match, conditions, 0);
  if (outcome?.kind === 'null') {
    return fail(
      'npm-bundle-failed',
      `${field}: ${packageName} does not export ${subpath}; its package.json "exports" maps it to null, which keeps it private.`,
    );
  }
  if (outcome === undefined) {
    return fail(
      'npm-bundle-failed',
      `${field}: ${packageName} exports ${subpath} only for other environments; nothing is exported there for the conditions the sandbox's bundler uses (${conditions.join(', ')}).`,
    );
  }
  if (outcome.kind === 'invalid') {
    return fail(
      'npm-bundle-failed',
      `${field}: ${packageName}'s "exports" maps ${subpath} to ${JSON.stringify(outcome.target)}, which is outside the package; an exported subpath must name a file inside its package.`,
    );
  }
  if (!(await exists(path.join(dir, ...outcome.target.slice(2).split('/'))))) {
    return fail('npm-bundle-failed', `${field}: ${packageName} exports ${subpath} as ${outcome.target}, which is missing from the installed package.`);
  }
  return ok({ via: 'exports', target: outcome.target });
}
