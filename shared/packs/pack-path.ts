// Pack-relative paths are the canonical ids of a pack's files (the `internal` list, relative
// imports, manifest `file` fields). Normalizing them in one pure function means the catalog, the
// analyzer and the digest can never disagree about which file a string names, and every escape
// trick (absolute paths, `..` above the root, backslashes, percent-encoding, control characters)
// is refused before anything touches a filesystem.

import { fail, ok, type Result } from '../protocol/result.ts';

export type PackPathProblem = 'absolute' | 'escape' | 'encoded' | 'invalid';

// Control characters, backslash (a separator on Windows) and the percent sign (encoded traversal).
const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f\\%]/;

/**
 * Normalize a pack-relative path: `./a/./b/../c.js` → `a/c.js`. Refuses absolute paths, drive
 * letters and URLs, anything that climbs above the pack root, empty segments and suspicious
 * characters. The result never starts with `./` and never contains `.` or `..` segments.
 */
export function normalizePackPath(raw: string): Result<string, PackPathProblem> {
  if (raw.length === 0) return fail('invalid', 'the path is empty');
  if (raw.includes('%')) return fail('encoded', `"${printable(raw)}" contains percent-encoding`);
  if (FORBIDDEN_CHARS.test(raw)) return fail('invalid', `"${printable(raw)}" contains a backslash or a control character`);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw) || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw)) {
    return fail('absolute', `"${printable(raw)}" is absolute; use a path relative to the pack root`);
  }
  const out: string[] = [];
  const segments = raw.split('/');
  for (const [index, segment] of segments.entries()) {
    if (segment === '' ) {
      if (index === segments.length - 1 && index > 0) return fail('invalid', `"${printable(raw)}" names a directory, not a file`);
      return fail('invalid', `"${printable(raw)}" has an empty path segment`);
    }
    if (segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return fail('escape', `"${printable(raw)}" climbs above the pack root`);
      out.pop();
      continue;
    }
    out.push(segment);
  }
  if (out.length === 0) return fail('invalid', `"${printable(raw)}" names the pack root, not a file`);
  return ok(out.join('/'));
}

/** Resolve a relative import request (`./x.js`, `../x.js`) against the importer's pack path. */
export function resolveRelative(importerPath: string, request: string): Result<string, PackPathProblem> {
  const slash = importerPath.lastIndexOf('/');
  const dir = slash === -1 ? '' : importerPath.slice(0, slash + 1);
  if (request.includes('%')) return fail('encoded', `"${printable(request)}" contains percent-encoding`);
  const resolved = normalizePackPath(dir + request);
  if (!resolved.ok && resolved.code === 'escape') return fail('escape', `"${printable(request)}" from "${printable(importerPath)}" climbs above the pack root`);
  return resolved;
}

export function isRelativeRequest(request: string): boolean {
  return request.startsWith('./') || request.startsWith('../') || request === '.' || request === '..';
}

/** A string safe to quote in a message: control characters and over-long tails are cut. */
export function printable(text: string, max = 120): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}
