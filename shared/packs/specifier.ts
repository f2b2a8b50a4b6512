// The one specifier rule of the spec: a module's import specifier is `<package>` when its manifest
// `name` is ".", else `<package>/<name>`, and `name` is exactly one safe path segment. Everything
// that maps a string to a module (discovery, the catalog, the loader, the CLI) goes through here,
// so a name can never smuggle a path, an encoded traversal or a look-alike into a specifier.

import { LIMITS } from '../protocol/limits.ts';
import { fail, ok, type Result } from '../protocol/result.ts';
import { printable } from './pack-path.ts';

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

// Names that mean something to a resolver or a filesystem, or that shadow object internals.
const RESERVED = new Set(['node_modules', 'package.json', '__proto__', 'constructor', 'prototype']);

/**
 * Validate a module `name` and return its normalized form (Unicode NFC; the allowed alphabet is
 * ASCII, so normalization only matters for refusing look-alikes). "." is the pack's root entry.
 */
export function validateModuleName(raw: string): Result<string, 'module-name-invalid'> {
  const name = raw.normalize('NFC');
  const quoted = `"${printable(raw, LIMITS.moduleNameChars)}"`;
  if (name === '.') return ok('.');
  if (name.length === 0) return fail('module-name-invalid', 'Module name is empty; use "." for the pack\'s root entry.');
  if (name.length > LIMITS.moduleNameChars) {
    return fail('module-name-invalid', `Module name ${quoted} is longer than ${LIMITS.moduleNameChars} characters.`);
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return fail('module-name-invalid', `Module name ${quoted} contains a control character.`);
  if (name.includes('%')) return fail('module-name-invalid', `Module name ${quoted} contains percent-encoding.`);
  if (name.includes('/') || name.includes('\\')) return fail('module-name-invalid', `Module name ${quoted} contains a path separator; a name is one path segment.`);
  if (/^\.+$/.test(name)) return fail('module-name-invalid', `Module name ${quoted} is a relative path form.`);
  if (!SEGMENT.test(name)) {
    return fail('module-name-invalid', `Module name ${quoted} may use only letters, digits, "-", "_" and ".", and must not start with "." or "-".`);
  }
  if (name.endsWith('.')) return fail('module-name-invalid', `Module name ${quoted} must not end with ".".`);
  if (RESERVED.has(name.toLowerCase())) return fail('module-name-invalid', `Module name ${quoted} is reserved.`);
  return ok(name);
}

/** The import specifier of a validated module name. */
export function specifierFor(packName: string, name: string): string {
  return name === '.' ? packName : `${packName}/${name}`;
}

/**
 * The specifier a manifest entry named `name` would be imported by, or undefined when discovery
 * would skip the entry for its name (so a registry's manifest is described as an install would be).
 */
export function manifestSpecifier(packName: string, name: string): string | undefined {
  const checked = validateModuleName(name);
  return checked.ok ? specifierFor(packName, checked.value) : undefined;
}

/** Key used to detect duplicates: case-insensitive, because case-only twins confuse people and filesystems. */
export function specifierKey(specifier: string): string {
  return specifier.toLowerCase();
}

/**
 * Split a specifier into its package name and the rest (`@s/p/x` → `@s/p`, `x`). Returns
 * undefined when the string cannot start with a package name.
 */
export function splitSpecifier(specifier: string): { packName: string; subpath: string } | undefined {
  const parts = specifier.split('/');
  const scoped = specifier.startsWith('@');
  const take = scoped ? 2 : 1;
  if (parts.length < take || parts.slice(0, take).some((p) => p === '')) return undefined;
  return { packName: parts.slice(0, take).join('/'), subpath: parts.slice(take).join('/') };
}
