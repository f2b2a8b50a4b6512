// Issue 14 item 2: the npm compiler bundles only the pack's own directory and the packages of its
// dependency closure, never another file of the install root. The root here is shaped like the
// app's data directory (saved workflows, the npm userconfig, the ledger, npm's cache), and every
// attack is a pack whose `npm` field names itself or a dependency that tries to inline those files.
// Each test uses real esbuild and the real admission probe; "no secret" is checked in the output.

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NORMALIZED_OPTIONS } from './build-options.ts';
import { CACHE_DIR, contentKey } from './compile-cache.ts';
import { createFixtureRoot, type FixtureRoot, type PackageFiles } from '../testing/fixture-root.ts';
import { createNpmCompiler } from './npm-compiler.ts';

const WORKFLOW_SECRET = 'WORKFLOW-INPUT-TOKEN-1f2e';
const NPMRC_SECRET = 'NPMRC-AUTH-TOKEN-9a8b';
const LEDGER_SECRET = 'LEDGER-MARK-77c1';

let fx: FixtureRoot;
beforeEach(async () => {
  fx = await createFixtureRoot();
  await fs.mkdir(path.join(fx.root, 'workflows'), { recursive: true });
  await fs.writeFile(path.join(fx.root, 'workflows', 'victim.json'), JSON.stringify({ name: 'victim', inputs: { token: WORKFLOW_SECRET } }));
  await fs.writeFile(path.join(fx.root, '.sandbox-packs-npmrc'), `//registry.example/:_authToken=${NPMRC_SECRET}\n`);
  await fs.writeFile(path.join(fx.root, 'sandbox-packs-ledger.json'), JSON.stringify({ version: 1, mark: LEDGER_SECRET, packs: {} }));
  await fs.mkdir(path.join(fx.root, '.npm-cache'), { recursive: true });
  await fs.writeFile(path.join(fx.root, '.npm-cache', 'leak.js'), `module.exports = "${NPMRC_SECRET}";\n`);
});
afterEach(async () => {
  await fx.dispose();
});

const SECRETS = new RegExp(`${WORKFLOW_SECRET}|${NPMRC_SECRET}|${LEDGER_SECRET}`);

/** A sandbox-only pack at node_modules/lure whose one npm module is the pack itself. */
async function lure(files: PackageFiles, manifest: Record<string, unknown> = {}) {
  const packDir = await fx.addPackage('node_modules/lure', {
    'package.json': {
      name: 'lure',
      version: '1.0.0',
      main: 'lure.js',
      ...manifest,
      nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', npm: 'lure' }] },
    },
    ...files,
  });
  const compiler = createNpmCompiler({ root: fx.root });
  const result = await compiler.compile({ packDir, packName: 'lure', packVersion: '1.0.0', npmName: 'lure', specifier: 'lure' });
  // Whatever the outcome, no secret may appear in it.
  expect(JSON.stringify(result)).not.toMatch(SECRETS);
  return result;
}

const outside = (request: string) => ({
  ok: false,
  code: 'npm-bundle-failed',
  message: `lure imports ${request}, which is not a file of the pack or of a package it depends on.`,
});

describe('files of the data directory', () => {
  it('refuses an ES import of a saved workflow (../../workflows/victim.json)', async () => {
    expect(await lure({ 'lure.js': 'import wf from "../../workflows/victim.json";\nexport default wf;\n' })).toEqual(outside('../../workflows/victim.json'));
  });

  it('refuses the npm userconfig imported as text with an import attribute', async () => {
    expect(await lure({ 'lure.js': 'import t from "../../.sandbox-packs-npmrc" with { type: "text" };\nexport default t;\n' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure imports ../../.sandbox-packs-npmrc with import attributes (type: "text"); bundled code may not use import attributes.',
    });
  });

  it('refuses the ledger required from CommonJS', async () => {
    expect(await lure({ 'lure.js': 'module.exports = require("../../sandbox-packs-ledger.json");\n' })).toEqual(outside('../../sandbox-packs-ledger.json'));
  });

  it('refuses an absolute path into the data directory', async () => {
    const abs = path.join(fx.root, 'workflows', 'victim.json');
    expect(await lure({ 'lure.js': `import wf from ${JSON.stringify(abs)};\nexport default wf;\n` })).toEqual(outside(abs));
  });

  it('refuses a symlinked file or folder inside the pack that points into the data directory', async () => {
    await fs.mkdir(path.join(fx.root, 'node_modules', 'lure'), { recursive: true });
    await fs.symlink(path.join(fx.root, 'workflows', 'victim.json'), path.join(fx.root, 'node_modules', 'lure', 'data.json'));
    await fs.symlink(path.join(fx.root, 'workflows'), path.join(fx.root, 'node_modules', 'lure', 'saved'), 'dir');
    expect(await lure({ 'lure.js': 'import wf from "./data.json";\nexport default wf;\n' })).toEqual(outside('./data.json'));
    expect(await lure({ 'lure.js': 'import wf from "./saved/victim.json";\nexport default wf;\n' })).toEqual(outside('./saved/victim.json'));
    expect(await lure({ 'lure.js': 'export default (n) => import(`./saved/${n}.json`);\n' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure would bundle workflows/victim.json, which is not a file of the pack or of a package it depends on.',
    });
  });

  it("refuses npm's cache folder inside the root", async () => {
    expect(await lure({ 'lure.js': 'module.exports = require("../../.npm-cache/leak.js");\n' })).toEqual(outside('../../.npm-cache/leak.js'));
  });

  it('refuses a glob-style dynamic import (esbuild expands it without asking resolve plugins)', async () => {
    expect(await lure({ 'lure.js': 'export default function pick(n) { return import(`../../workflows/${n}.json`); }\n' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure would bundle workflows/victim.json, which is not a file of the pack or of a package it depends on.',
    });
  });

  it('refuses a glob-style require built by string concatenation', async () => {
    expect(await lure({ 'lure.js': 'module.exports = (n) => require("../../workflows/" + n + ".json");\n' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure would bundle workflows/victim.json, which is not a file of the pack or of a package it depends on.',
    });
  });

  it('refuses a main field that points into the data directory', async () => {
    expect(await lure({}, { main: '../../workflows/victim.json' })).toEqual(outside('lure'));
  });

  it('refuses a browser field (and a module field) that replaces the entry with a file of the root', async () => {
    expect(await lure({ 'lure.js': 'export const x = 1;\n' }, { browser: '../../sandbox-packs-ledger.json' })).toEqual(outside('lure'));
    expect(await lure({ 'lure.js': 'export const x = 1;\n' }, { module: '../../sandbox-packs-ledger.json' })).toEqual(outside('lure'));
  });

  it('does not follow a browser-map entry that remaps a file to ../../ (esbuild keeps the original file)', async () => {
    const result = await lure(
      { 'lure.js': 'export { default } from "./fake.js";\n', 'fake.js': 'export default "own";\n' },
      { browser: { './fake.js': '../../sandbox-packs-ledger.json' } },
    );
    expect(result.ok && result.value.source.includes('"own"')).toBe(true);
  });

  it('refuses exports and imports maps that point to ../ (esbuild does not resolve them)', async () => {
    expect(await lure({ 'lure.js': 'export const x = 1;\n' }, { exports: { '.': './../../workflows/victim.json' } })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure could not be bundled: Could not resolve "lure" (node_modules/lure/<sandbox-entry>:1).',
    });
    expect(await lure({ 'lure.js': 'import s from "#secret";\nexport default s;\n' }, { imports: { '#secret': './../../workflows/victim.json' } })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure could not be bundled: Could not resolve "#secret" (node_modules/lure/lure.js:1).',
    });
  });

  it('ignores tsconfig paths that map a bare name into the data directory', async () => {
    const result = await lure({
      'lure.js': 'import wf from "secret-alias";\nexport default wf;\n',
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { 'secret-alias': ['../../workflows/victim.json'] } } }),
      'jsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { 'secret-alias': ['../../workflows/victim.json'] } } }),
    });
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure could not be bundled: Could not resolve "secret-alias" (node_modules/lure/lure.js:1).',
    });
  });

  it('bundles new URL(..., import.meta.url) as a plain expression: no file is read', async () => {
    const result = await lure({ 'lure.js': 'export function where() { return new URL("../../workflows/victim.json", import.meta.url).href; }\n' });
    expect(result.ok).toBe(true);
  });
});

describe('files and loaders that are not JavaScript', () => {
  it('refuses a data: URL import', async () => {
    expect(await lure({ 'lure.js': 'import x from "data:text/javascript,export default 42";\nexport default x;\n' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure imports data:text/javascript,export default 42, which is not a file; data: URLs and other virtual modules are not bundled.',
    });
  });

  it('skips an entry using the old assert { } form (it used to throw out of the entry parser)', async () => {
    const result = await lure({ 'lure.js': 'import d from "./d.json" assert { type: "json" };\nexport default d;\n', 'd.json': '{"a":1}' });
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: "lure's entry file node_modules/lure/lure.js could not be parsed: Unexpected token (1:25).",
    });
  });

  it('gives assert { type: "text" } no loader: esbuild drops it and the file is judged as it is', async () => {
    expect(
      await lure({
        'lure.js': 'export { default } from "./h.js";\n',
        'h.js': 'import t from "../../.sandbox-packs-npmrc" assert { type: "text" };\nexport default t;\n',
      }),
    ).toEqual(outside('../../.sandbox-packs-npmrc'));
    expect(
      await lure({
        'lure.js': 'export { default } from "./h.js";\n',
        'h.js': 'import t from "./n.txt" assert { type: "text" };\nexport default t;\n',
        'n.txt': 'x',
      }),
    ).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure imports ./n.txt, a .txt file; only .js, .mjs, .cjs and .json files are bundled.',
    });
  });

  it('refuses import attributes on a dynamic import and on a glob-style import', async () => {
    expect(await lure({ 'lure.js': 'export const f = () => import("./n.txt", { with: { type: "text" } });\n', 'n.txt': 'x' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure imports ./n.txt with import attributes (type: "text"); bundled code may not use import attributes.',
    });
    expect(await lure({ 'lure.js': 'export const f = (n) => import(`./d/${n}.txt`, { with: { type: "text" } });\n', 'd/a.txt': 'x' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure would bundle node_modules/lure/d/a.txt with import attributes (type: "text"); bundled code may not use import attributes.',
    });
  });

  it('refuses with { type: "json" } even on the pack\'s own JSON', async () => {
    expect(await lure({ 'lure.js': 'import d from "./d.json" with { type: "json" };\nexport default d;\n', 'd.json': '{"a":1}' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure imports ./d.json with import attributes (type: "json"); bundled code may not use import attributes.',
    });
  });

  it('refuses with { type: "bytes" } (esbuild\'s binary loader)', async () => {
    expect(await lure({ 'lure.js': 'import d from "./d.json" with { type: "bytes" };\nexport default d;\n', 'd.json': '{"a":1}' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'lure imports ./d.json with import attributes (type: "bytes"); bundled code may not use import attributes.',
    });
  });

  for (const [file, content] of [
    ['notes.txt', 'hello'],
    ['style.css', 'a{color:red}'],
    ['mod.wasm', '\0asm'],
    ['types.ts', 'export const t: number = 1;'],
    ['LICENSE', 'MIT'],
  ] as const) {
    it(`refuses the pack's own ${file} (a non-JS loader)`, async () => {
      const ext = path.extname(file);
      expect(await lure({ 'lure.js': `import x from "./${file}";\nexport default x;\n`, [file]: content })).toEqual({
        ok: false,
        code: 'npm-bundle-failed',
        message: `lure imports ./${file}, ${ext === '' ? 'a file without an extension' : `a ${ext} file`}; only .js, .mjs, .cjs and .json files are bundled.`,
      });
    });
  }

  it("keeps a plain JSON import of the pack's own data", async () => {
    const result = await lure({ 'lure.js': 'import d from "./d.json";\nexport const a = d.a;\n', 'd.json': '{"a":41}' });
    expect(result.ok && result.value.source.includes('41')).toBe(true);
  });
});

describe('packages outside the dependency closure', () => {
  it("refuses a hoisted package the pack does not depend on (a sibling pack's dependency)", async () => {
    await fx.addPackage('node_modules/sibling-dep', {
      'package.json': { name: 'sibling-dep', version: '1.0.0' },
      'index.js': `module.exports = "${NPMRC_SECRET}";\n`,
    });
    expect(await lure({ 'lure.js': 'module.exports = require("sibling-dep");\n' })).toEqual(outside('sibling-dep'));
  });

  it("refuses a sibling pack's own files", async () => {
    await fx.addPackage('node_modules/victim-pack', {
      'package.json': { name: 'victim-pack', version: '1.0.0' },
      'secret.js': `export const s = "${LEDGER_SECRET}";\n`,
    });
    expect(await lure({ 'lure.js': 'export { s } from "victim-pack/secret.js";\n' })).toEqual(outside('victim-pack/secret.js'));
    expect(await lure({ 'lure.js': 'export { s } from "../victim-pack/secret.js";\n' })).toEqual(outside('../victim-pack/secret.js'));
  });

  it("refuses an undeclared package nested in the pack's own node_modules", async () => {
    await fx.addPackage('node_modules/lure/node_modules/stowaway', {
      'package.json': { name: 'stowaway', version: '1.0.0' },
      'index.js': 'module.exports = 1;\n',
    });
    expect(await lure({ 'lure.js': 'module.exports = require("stowaway");\n' })).toEqual(outside('stowaway'));
  });

  it('refuses a transitive import a dependency does not declare', async () => {
    await fx.addPackage('node_modules/dep', { 'package.json': { name: 'dep', version: '1.0.0' }, 'index.js': 'module.exports = require("sibling-dep");\n' });
    await fx.addPackage('node_modules/sibling-dep', { 'package.json': { name: 'sibling-dep', version: '1.0.0' }, 'index.js': 'module.exports = 2;\n' });
    expect(await lure({ 'lure.js': 'module.exports = require("dep");\n' }, { dependencies: { dep: '1.0.0' } })).toEqual(outside('sibling-dep'));
  });

  it('refuses an npm field naming an installed package the pack does not depend on', async () => {
    await fx.addPackage('node_modules/not-mine', { 'package.json': { name: 'not-mine', version: '1.0.0' }, 'index.js': 'export const x = 1;\n' });
    const packDir = await fx.addPackage('node_modules/other', {
      'package.json': { name: 'other', version: '1.0.0', nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', npm: 'not-mine' }] } },
    });
    const compiler = createNpmCompiler({ root: fx.root });
    expect(await compiler.compile({ packDir, packName: 'other', packVersion: '1.0.0', npmName: 'not-mine', specifier: 'other' })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'not-mine is not among the dependencies of other; the "npm" field must name the pack itself or a package in its package.json dependencies.',
    });
    expect(compiler.stats().bundles).toBe(0);
  });

  it('refuses a declared dependency that is a symlink to the data directory itself', async () => {
    await fs.symlink(fx.root, path.join(fx.root, 'node_modules', 'evil'), 'dir');
    expect(await lure({ 'lure.js': 'module.exports = require("evil/workflows/victim.json");\n' }, { dependencies: { evil: 'file:../..' } })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: "lure cannot be bundled: lure's dependency evil resolves to the install root itself, not a package folder under node_modules.",
    });
  });

  it('refuses a declared dependency that is a symlink to the workflows folder', async () => {
    await fs.symlink(path.join(fx.root, 'workflows'), path.join(fx.root, 'node_modules', 'evil'), 'dir');
    expect(await lure({ 'lure.js': 'module.exports = require("evil/victim.json");\n' }, { dependencies: { evil: 'file:../../workflows' } })).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: "lure cannot be bundled: lure's dependency evil resolves to workflows, not a package folder under node_modules.",
    });
  });

  it('bundles a declared dependency chain and ignores a dependency cycle', async () => {
    await fx.addPackage('node_modules/a', {
      'package.json': { name: 'a', version: '1.0.0', dependencies: { b: '1.0.0' } },
      'index.js': 'exports.fromB = require("b").b;\nexports.a = "A";\n',
    });
    await fx.addPackage('node_modules/b', {
      'package.json': { name: 'b', version: '1.0.0', dependencies: { a: '1.0.0', lure: '1.0.0' } },
      'index.js': 'exports.b = "B";\n',
    });
    const result = await lure({ 'lure.js': 'module.exports = require("a");\n' }, { dependencies: { a: '1.0.0' } });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.source).toContain('"B"');
  });

  it("resolves a dependency the way npm nests it: the pack's own copy first, then the hoisted one", async () => {
    await fx.addPackage('node_modules/dual', { 'package.json': { name: 'dual', version: '1.0.0' }, 'index.js': 'module.exports = "hoisted";\n' });
    await fx.addPackage('node_modules/lure/node_modules/dual', {
      'package.json': { name: 'dual', version: '2.0.0' },
      'index.js': 'module.exports = "nested";\n',
    });
    const result = await lure({ 'lure.js': 'module.exports = require("dual");\n' }, { dependencies: { dual: '2.0.0' } });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.source).toContain('"nested"');
    expect(result.value.source).not.toContain('"hoisted"');
  });
});

describe('the compile cache under the closure rules', () => {
  const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

  it('never serves an entry made under the old rules (compiler /1, fenced only by the install root)', async () => {
    // The entry the previous compiler wrote for this very pack after inlining the workflow: same
    // lookup name and key formula as /1, inputs that still hash the same.
    const lureJs = 'import wf from "../../workflows/victim.json";\nexport default wf;\n';
    await fx.addPackage('node_modules/lure', { 'lure.js': lureJs });
    const oldVersion = 'sandbox-packs-npm-compiler/1';
    const oldId = `${oldVersion};esbuild@${esbuild.version};options=${sha(NORMALIZED_OPTIONS).slice(0, 16)}`;
    const lookup = sha([oldId, `esbuild@${esbuild.version}`, 'node_modules/lure', 'lure', 'lure', 'node_modules/lure'].join('\0'));
    const victim = await fs.readFile(path.join(fx.root, 'workflows', 'victim.json'));
    const inputs = [
      { path: 'node_modules/lure/lure.js', sha256: sha(lureJs) },
      { path: 'workflows/victim.json', sha256: sha(victim) },
    ];
    const stale = {
      format: oldVersion,
      compilerId: oldId,
      key: contentKey(inputs, [oldVersion, `esbuild@${esbuild.version}`, NORMALIZED_OPTIONS]),
      inputs,
      absent: [],
      outcome: { ok: true, source: `var t={token:"${WORKFLOW_SECRET}"};export{t as default};`, inputsDigest: sha('old'), warnings: [] },
    };
    await fs.mkdir(path.join(fx.root, CACHE_DIR), { recursive: true });
    await fs.writeFile(path.join(fx.root, CACHE_DIR, `${lookup}.json`), JSON.stringify(stale));
    expect(await lure({ 'lure.js': lureJs })).toEqual(outside('../../workflows/victim.json'));
  });

  it('does not serve a cached bundle once the dependency it used is dropped from package.json', async () => {
    await fx.addPackage('node_modules/dep', { 'package.json': { name: 'dep', version: '1.0.0' }, 'index.js': 'module.exports = "from dep";\n' });
    const first = await lure({ 'lure.js': 'module.exports = require("dep");\n' }, { dependencies: { dep: '1.0.0' } });
    expect(first.ok && first.value.source.includes('from dep')).toBe(true);
    expect(await lure({ 'lure.js': 'module.exports = require("dep");\n' })).toEqual(outside('dep'));
  });
});
