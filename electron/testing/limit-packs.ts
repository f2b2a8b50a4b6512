// Test support (imported by tests only): packs built to sit exactly at one bound of the contract's
// answer schemas, or one past it, written into an install root shaped like a real npm tree. Each
// builder takes the size to build, so a table can build the same pack at the limit and at the
// limit + 1 and compare what discovery and every face make of the two.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildExportsModule, type BuilderValType } from '../../shared/testing/wasm-builder.ts';
import { writePackage } from './fixture-root.ts';

/** What one pack folder holds: package.json as an object, every other file as text or bytes. */
export interface LimitPack {
  readonly name: string;
  readonly packageJson: Record<string, unknown>;
  readonly files: Readonly<Record<string, string | Uint8Array>>;
}

/** Write `pack` at `<root>/node_modules/<name>`. */
export async function writeLimitPack(root: string, pack: LimitPack): Promise<void> {
  const dir = path.join(root, 'node_modules', ...pack.name.split('/'));
  await writePackage(dir, { 'package.json': pack.packageJson });
  for (const [rel, content] of Object.entries(pack.files)) {
    const file = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

const SKILL = (name: string, description = 'Limits fixture.') => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

/** A sandbox-only pack of authored JS modules (`file` relative to the pack), with a SKILL.md unless `skill` is false. */
export function authoredPack(
  name: string,
  modules: readonly { readonly name: string; readonly file: string; readonly source: string; readonly description?: string }[],
  extra: { readonly version?: string; readonly internal?: Readonly<Record<string, string>>; readonly skill?: string | false } = {},
): LimitPack {
  const files: Record<string, string> = {};
  for (const m of modules) files[m.file] = m.source;
  for (const [file, source] of Object.entries(extra.internal ?? {})) files[file] = source;
  if (extra.skill !== false) files['SKILL.md'] = extra.skill ?? SKILL(name);
  return {
    name,
    packageJson: {
      name,
      version: extra.version ?? '1.0.0',
      nodetool: {
        apiVersion: 1,
        sandboxModules: modules.map((m) => ({
          name: m.name,
          kind: 'js',
          file: m.file,
          ...(m.description !== undefined ? { description: m.description } : {}),
        })),
        ...(extra.internal ? { internal: Object.keys(extra.internal) } : {}),
      },
    },
    files,
  };
}

/** `export const <name> = <i>;` for each name. */
export function exportingSource(names: readonly string[]): string {
  return names.map((n, i) => `export const ${n} = ${i};`).join('\n') + '\n';
}

/** `count` distinct export names of the form e0, e1, ... */
export function exportNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `e${i}`);
}

/** An identifier of exactly `length` characters. */
export function identifierOfLength(length: number): string {
  return `n${'a'.repeat(length - 1)}`;
}

/** A pack-relative path of exactly `length` characters ending in `suffix`, in segments short enough for any filesystem. */
export function pathOfLength(length: number, suffix: string): string {
  let dirs = '';
  while (length - dirs.length - suffix.length > 200) dirs += `${'d'.repeat(199)}/`;
  return `${dirs}${'d'.repeat(length - dirs.length - suffix.length)}${suffix}`;
}

/** A pack whose module "." bundles the pack itself through the npm compiler; `index.js` is its main. */
export function npmSelfPack(name: string, indexSource: string): LimitPack {
  return {
    name,
    packageJson: {
      name,
      version: '1.0.0',
      main: 'index.js',
      type: 'module',
      nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', npm: name }] },
    },
    files: { 'index.js': indexSource, 'SKILL.md': SKILL(name) },
  };
}

/** A pack with one WASM module "w" whose binary exports `fns` (names are also the manifest's `as` names). */
export function wasmPack(
  name: string,
  fns: readonly { readonly name: string; readonly params: readonly BuilderValType[]; readonly results: readonly BuilderValType[] }[],
  description?: string,
): LimitPack {
  return {
    name,
    packageJson: {
      name,
      version: '1.0.0',
      nodetool: {
        apiVersion: 1,
        sandboxModules: [
          {
            name: 'w',
            kind: 'wasm',
            file: 'w.wasm',
            memoryPagesMax: 0,
            exports: fns.map((f) => f.name),
            ...(description !== undefined ? { description } : {}),
          },
        ],
      },
    },
    files: { 'w.wasm': buildExportsModule(fns), 'SKILL.md': SKILL(name) },
  };
}
