// Issue 14 item 3: discovery is total. Every pack below used to be able to stop discovery (and
// with it the app, `discover`, `run` and `serve`) or is a neighbouring shape of the same problem;
// each must end as one skipped module (or one rejected pack) with its reason, while the good
// pack in the same root stays ready. Real esbuild, the real admission probe, the real CLI.

import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedPack } from '../../shared/packs/pack-loader.ts';
import { main } from '../cli/main.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { openCatalog } from './catalog.ts';
import { discover, type Discovery } from './discover.ts';
import type { NpmModuleCompiler } from './npm-compiler-port.ts';

let root: string;
let found: Discovery;

async function write(rel: string, content: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
}

/** A pack whose module "." bundles the pack itself (its `main`), plus a plain authored module. */
async function selfPack(name: string, manifest: Record<string, unknown>, files: Record<string, string | Uint8Array>): Promise<void> {
  await write(
    `node_modules/${name}/package.json`,
    JSON.stringify({
      name,
      version: '1.0.0',
      ...manifest,
      nodetool: {
        apiVersion: 1,
        sandboxModules: [
          { name: '.', kind: 'js', npm: name },
          { name: 'plain', kind: 'js', file: 'plain.js' },
        ],
      },
    }),
  );
  await write(`node_modules/${name}/plain.js`, 'export const plain = true;\n');
  for (const [rel, content] of Object.entries(files)) await write(`node_modules/${name}/${rel}`, content);
}

function pack(name: string): LoadedPack {
  const p = found.packs.find((x) => x.name === name);
  if (!p) throw new Error(`pack ${name} not discovered`);
  return p;
}

function outcome(name: string): Record<string, string> {
  return Object.fromEntries(pack(name).modules.map((m) => [m.specifier, m.status === 'ready' ? 'ready' : `${m.code}: ${m.reason}`]));
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sp-total-'));
  await selfPack('data-main', { main: 'data.json' }, { 'data.json': '{"rows":[1,2,3]}' });
  await selfPack(
    'assert-entry',
    { main: 'index.js' },
    { 'index.js': 'import d from "./d.json" assert { type: "json" };\nexport default d;\n', 'd.json': '{}' },
  );
  await selfPack('main-dir', { main: 'lib' }, { 'lib/index.js': 'export const fromDir = 1;\n' });
  await selfPack('main-dir-empty', { main: 'lib' }, { 'lib/README.md': 'nothing here' });
  await selfPack('binary-main', { main: 'blob.bin' }, { 'blob.bin': new Uint8Array([0, 1, 2, 255]) });
  await selfPack('garbage-js', { main: 'g.js' }, { 'g.js': new Uint8Array([0, 1, 2, 0x40, 0x40]) });
  await selfPack('non-utf8', { main: 'n.js' }, { 'n.js': new Uint8Array([...Buffer.from('export const s = "'), 0xff, 0xfe, ...Buffer.from('";\n')]) });
  // The pack's own package.json is judged by the manifest schema; a dependency's is not, so the odd
  // fields sit in the dependency the pack bundles.
  await selfPack('odd-fields', { main: 'index.js', dependencies: { 'odd-dep': '1.0.0' } }, { 'index.js': 'export { odd } from "odd-dep";\n' });
  await write(
    'node_modules/odd-dep/package.json',
    JSON.stringify({
      name: 7,
      main: 42,
      browser: 5,
      exports: null,
      module: ['x'],
      type: 'module',
      dependencies: ['a', 'b'],
      peerDependencies: 'lodash',
      optionalDependencies: { '../../escape': '1', '': '1', '/etc': '1' },
    }),
  );
  await write('node_modules/odd-dep/index.js', 'export const odd = 1;\n');
  const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`not-installed-${i}`, '1.0.0']));
  await selfPack('many-deps', { main: 'index.js', dependencies: many }, { 'index.js': 'export const many = 1;\n' });
  await selfPack('dep-cycle', { main: 'index.js', dependencies: { 'cyc-a': '1.0.0' } }, { 'index.js': 'export { a } from "cyc-a";\n' });
  await write('node_modules/cyc-a/package.json', JSON.stringify({ name: 'cyc-a', version: '1.0.0', type: 'module', dependencies: { 'cyc-b': '1.0.0' } }));
  await write('node_modules/cyc-a/index.js', 'import { b } from "cyc-b";\nexport const a = "a" + b;\n');
  await write(
    'node_modules/cyc-b/package.json',
    JSON.stringify({ name: 'cyc-b', version: '1.0.0', type: 'module', dependencies: { 'cyc-a': '1.0.0', 'dep-cycle': '1.0.0' } }),
  );
  await write('node_modules/cyc-b/index.js', 'export const b = "b";\n');
  await selfPack('self-loop-link', { main: 'index.js', dependencies: { 'loop-link': '1.0.0' } }, { 'index.js': 'export const x = 1;\n' });
  await symlink('loop-link', path.join(root, 'node_modules', 'loop-link'));
  await selfPack('good', { main: 'index.js', type: 'module' }, { 'index.js': 'export const good = "yes";\n' });
  const result = await discover(root, { compiler: createNpmCompiler({ root }) });
  if (!result.ok) throw new Error(result.message);
  found = result.value;
}, 180_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('one bad npm module is one skipped module', () => {
  it('skips a pack whose npm module is its own JSON main (the crash of issue 14 item 3)', () => {
    expect(outcome('data-main')).toEqual({
      'data-main':
        'npm-bundle-failed: data-main\'s entry file node_modules/data-main/data.json is not JavaScript; the "npm" field must name a package whose entry is a .js, .mjs or .cjs file.',
      'data-main/plain': 'ready',
    });
    expect(pack('data-main').status).toBe('ok');
  });

  it('skips an entry the export parser cannot read (assert { })', () => {
    expect(outcome('assert-entry')['assert-entry']).toBe(
      "npm-bundle-failed: assert-entry's entry file node_modules/assert-entry/index.js could not be parsed: Unexpected token (1:25).",
    );
  });

  it('bundles a main that names a directory with an index.js, skips one without', () => {
    expect(outcome('main-dir')['main-dir']).toBe('ready');
    expect(outcome('main-dir-empty')['main-dir-empty']).toBe(
      'npm-bundle-failed: main-dir-empty could not be bundled: Could not resolve "main-dir-empty" (node_modules/main-dir-empty/<sandbox-entry>:1).',
    );
  });

  it("skips a binary main by its loader and a binary .js by esbuild's parse error", () => {
    expect(outcome('binary-main')['binary-main']).toBe(
      'npm-bundle-failed: binary-main imports binary-main, a .bin file; only .js, .mjs, .cjs and .json files are bundled.',
    );
    expect(outcome('garbage-js')['garbage-js']).toBe(
      'npm-bundle-failed: garbage-js could not be bundled: Unexpected "\\x00" (node_modules/garbage-js/g.js:1).',
    );
  });

  it('bundles a file that is not valid UTF-8 (esbuild replaces the bytes) without crashing', () => {
    expect(outcome('non-utf8')['non-utf8']).toBe('ready');
  });

  it('treats odd package.json fields as absent: wrong types, path-like dependency names, 3000 missing dependencies', () => {
    expect(outcome('odd-fields')['odd-fields']).toBe('ready');
    expect(outcome('many-deps')['many-deps']).toBe('ready');
  });

  it('walks a dependency cycle once, and a symlink loop as a missing dependency', () => {
    expect(outcome('dep-cycle')['dep-cycle']).toBe('ready');
    expect(outcome('self-loop-link')['self-loop-link']).toBe('ready');
  });

  it('keeps the good pack in the same root ready', () => {
    expect(outcome('good')).toEqual({ good: 'ready', 'good/plain': 'ready' });
  });
});

describe('a compiler port that throws', () => {
  for (const [label, compiler] of [
    [
      'throws synchronously',
      {
        compile: () => {
          throw new Error('boom');
        },
      },
    ],
    ['rejects', { compile: () => Promise.reject(new TypeError('bad state')) }],
  ] as Array<[string, NpmModuleCompiler]>) {
    it(`skips the npm module when the port ${label}; the plain module stays ready`, async () => {
      const result = await discover(root, { compiler, onlyPacks: new Set(['good']) });
      if (!result.ok) throw new Error(result.message);
      const good = result.value.packs[0];
      const reason = label === 'rejects' ? 'bad state' : 'boom';
      expect(good?.modules.map((m) => [m.specifier, m.status, m.code, m.reason])).toEqual([
        ['good', 'skipped', 'npm-bundle-failed', `good: the npm compiler failed on "good" (${reason}).`],
        ['good/plain', 'ready', undefined, undefined],
      ]);
    });
  }
});

describe('the faces that start from discovery', () => {
  it('opens a catalog over the root', async () => {
    const catalog = await openCatalog({ root, compiler: createNpmCompiler({ root }) });
    if (!catalog.ok) throw new Error(catalog.message);
    const dataMain = catalog.value.diagnostics().find((p) => p.name === 'data-main');
    expect(dataMain?.modules.map((m) => m.status)).toEqual(['skipped', 'ready']);
  });

  it('`discover --json` exits 0 and reports the skip', async () => {
    const out: string[] = [];
    const code = await main(['discover', '--root', root, '--json'], { out: (t) => out.push(t), err: () => {} });
    expect(code).toBe(0);
    const json = JSON.parse(out.join('')) as { packs: Array<{ name: string; modules: Array<{ specifier: string; status: string; code?: string }> }> };
    expect(json.packs.find((p) => p.name === 'data-main')?.modules.map((m) => [m.specifier, m.status, m.code])).toEqual([
      ['data-main', 'skipped', 'npm-bundle-failed'],
      ['data-main/plain', 'ready', undefined],
    ]);
  });
});
