// Turns what a user typed after `install` into one of the forms v1 accepts, before anything
// reaches npm's argv. A spec is attacker-chosen text: a leading "-" would be read by npm as an
// option, `npm:` aliases would install one package under another's name, and npm silently treats
// `user/repo`, `github:`, `git+ssh:` and GitHub https URLs as git sources (which fetch and may run
// `prepare`). So the accepted forms are spelled out here and everything else is refused.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { PackageNameSchema } from '../../shared/protocol/manifest.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import type { InstallSource } from '../../shared/protocol/ledger.ts';
import type { InstallResult } from './install-codes.ts';

export interface ParsedSpec {
  readonly source: InstallSource;
  /** The argument handed to npm (an absolute path for files). */
  readonly npmArg: string;
  /** Known up front for registry specs; tarballs reveal their name only once installed. */
  readonly name?: string;
  /** What the user asked for, for the ledger. */
  readonly spec: string;
}

const GIT_MESSAGE = 'Git sources cannot be installed in this version; install a published version from the registry, or a .tgz made with `npm pack`.';
const TARBALL = /\.(?:tgz|tar\.gz)$/i;
// A version, a dist-tag or a semver range: no ":" or "/" (which would make it a URL, path or alias).
const SELECTOR = /^[A-Za-z0-9.+_^~<>=| *-]{1,256}$/;

function looksLikeGit(spec: string): boolean {
  return (
    /^git(?:\+[a-z]+)?:/i.test(spec) ||
    /^(?:github|gitlab|bitbucket|gist):/i.test(spec) ||
    /^ssh:/i.test(spec) ||
    /^[^@/\s]+@[^:/\s]+:/.test(spec) || // scp-like: git@github.com:user/repo
    /\.git(?:#.*)?$/i.test(spec) ||
    /^https?:\/\/(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|gist\.github\.com)\//i.test(spec) ||
    /^[A-Za-z0-9][\w.-]*\/[\w.-]+(?:#.*)?$/.test(spec) // github shorthand user/repo
  );
}

export function parseSpec(raw: string, cwd: string): InstallResult<ParsedSpec> {
  const spec = raw.trim();
  if (spec === '') return fail('spec-unsupported', 'No package was given to install; name a package from the registry, or a .tgz file.');
  if (spec.startsWith('-')) return fail('spec-unsupported', `"${spec}" looks like an option, not a package; package specs never start with "-".`);
  if (/[\s\u0000-\u001f\u007f]/.test(spec)) return fail('spec-unsupported', 'A package spec cannot contain spaces or control characters.');

  if (/^https:\/\//i.test(spec)) {
    if (looksLikeGit(spec)) return fail('spec-unsupported', GIT_MESSAGE);
    let url: URL;
    try {
      url = new URL(spec);
    } catch {
      return fail('spec-unsupported', `"${spec}" is not a valid URL.`);
    }
    if (url.username || url.password) return fail('spec-unsupported', 'A tarball URL must not carry credentials.');
    if (!TARBALL.test(url.pathname)) return fail('spec-unsupported', 'An https spec must point at a package tarball (a URL ending in .tgz or .tar.gz).');
    return ok({ source: 'tarball-url', npmArg: url.href, spec });
  }
  if (/^http:\/\//i.test(spec)) return fail('spec-unsupported', 'Tarballs are only installed over https, never plain http.');
  if (/^(?:npm|workspace|link|portal|patch|catalog):/i.test(spec) || /^[^:]+@(?:npm|workspace|link|file|git\+?[a-z]*|github|https?):/i.test(spec)) {
    return fail('spec-unsupported', `"${spec}" is an alias or a protocol spec, which cannot be installed; give the package name itself.`);
  }
  if (looksLikeGit(spec) && !spec.startsWith('@') && !spec.startsWith('.') && !spec.startsWith('/') && !TARBALL.test(spec)) {
    return fail('spec-unsupported', GIT_MESSAGE);
  }
  if (/^git/i.test(spec) && /\.git/i.test(spec)) return fail('spec-unsupported', GIT_MESSAGE);

  // A local file: file:PATH, an absolute or relative path, or anything ending in .tgz.
  const filePath = spec.startsWith('file:') ? spec.slice(5) : spec;
  if (spec.startsWith('file:') || filePath.startsWith('.') || path.isAbsolute(filePath) || TARBALL.test(filePath) || filePath.includes(path.sep)) {
    if (!spec.startsWith('@') || spec.startsWith('file:')) {
      const absolute = path.resolve(cwd, filePath);
      if (!TARBALL.test(absolute))
        return fail('spec-unsupported', 'Installing from a folder is not supported; make a tarball with `npm pack` and install the .tgz.');
      if (!existsSync(absolute) || !statSync(absolute).isFile()) return fail('spec-unsupported', `There is no tarball at ${absolute}.`);
      return ok({ source: 'tarball-file', npmArg: absolute, spec });
    }
  }

  // name, name@version, name@tag, @scope/name[@selector]
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  const name = at === -1 ? spec : spec.slice(0, at);
  const selector = at === -1 ? undefined : spec.slice(at + 1);
  if (!PackageNameSchema.safeParse(name).success) return fail('spec-unsupported', `"${name}" is not a valid npm package name.`);
  if (selector !== undefined && !SELECTOR.test(selector)) return fail('spec-unsupported', `"${selector}" is not a version, range or tag.`);
  return ok({ source: 'registry', npmArg: selector === undefined ? name : `${name}@${selector}`, name, spec });
}
