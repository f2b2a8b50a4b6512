// Issue 27 part 2, item 1: an `npm` field may name a subpath of a declared dependency
// ("csv-parse/browser/esm/sync"), resolved through the package's `exports` under the compiler's
// conditions or, without `exports`, as a file of the package; with the same confinement as a
// package name and clear skip reasons. Fixture roots are shaped like real node_modules trees; the
// bundles are built by real esbuild and imported by the real admission probe.

import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCompilerFixture } from '../testing/compiler-fixture.ts';
import { createNpmCompiler } from './npm-compiler.ts';
import { CACHE_DIR } from './compile-cache.ts';

const compiling = useCompilerFixture();
const { compileFrom, engineExports } = compiling;

const pkg = (name: string, extra: object = {}) => ({ name, version: '1.0.0', ...extra });

/** A package like csv-parse: a Node entry that needs `stream`, and browser/ESM builds under subpaths. */
async function addLikeCsvParse(): Promise<void> {
  await compiling.fx.addPackage('node_modules/csvish', {
    'package.json': pkg('csvish', {
      type: 'module',
      exports: {
        '.': { import: './lib/index.js', require: './dist/cjs/index.cjs' },
        './sync': { import: './lib/sync.js', require: './dist/cjs/sync.cjs' },
        './browser/esm/sync': { types: './dist/esm/sync.d.ts', default: './dist/esm/sync.js' },
        './locale/*': './dist/locale/*.js',
        './locale/internal/*': null,
        './node-only': { node: './lib/node.js', require: './dist/cjs/node.cjs' },
        './package.json': './package.json',
      },
    }),
    'lib/index.js': 'import { Transform } from "stream";\nexport const parse = () => Transform;\n',
    'lib/sync.js': 'import { Buffer } from "buffer";\nexport const parse = (s) => Buffer.from(s);\n',
    'dist/esm/sync.js': 'export function parse(s) { return s.split("\\n").map((l) => l.split(",")); }\n',
    'dist/locale/en.js': 'export const name = "English";\n',
    'dist/locale/internal/x.js': 'export const secret = 1;\n',
    'lib/node.js': 'export const node = true;\n',
  });
}

describe('a subpath through the exports map', () => {
  it('bundles the browser build a package exports under a subpath, where its main entry would need Node', async () => {
    await addLikeCsvParse();
    const whole = await compileFrom('csvish', 'whole-pack');
    expect(whole.result.ok ? undefined : whole.result.code).toBe('npm-node-builtin');

    const { result } = await compileFrom('csvish/browser/esm/sync');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([]);
    expect(await engineExports(result.value.source)).toEqual(['parse']);
  });

  it('resolves a pattern key ("./locale/*"), and refuses what a more specific key maps to null', async () => {
    await addLikeCsvParse();
    const { result } = await compileFrom('csvish/locale/en');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.source).toContain('English');

    const hidden = await compileFrom('csvish/locale/internal/x', 'other-pack');
    expect(hidden.result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'csvish/locale/internal/x: csvish does not export ./locale/internal/x; its package.json "exports" maps it to null, which keeps it private.',
    });
    expect(hidden.compiler.stats().bundles).toBe(0);
  });

  it('refuses a subpath the exports map does not list, naming the ones it does', async () => {
    await addLikeCsvParse();
    const { result, compiler } = await compileFrom('csvish/dist/esm/sync.js');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message:
        'csvish/dist/esm/sync.js: csvish does not export ./dist/esm/sync.js; its package.json "exports" lists ., ./sync, ./browser/esm/sync, ./locale/*, ./node-only, ./package.json.',
    });
    expect(compiler.stats().bundles).toBe(0);
  });

  it('refuses a subpath exported only for conditions the sandbox does not use (node, require)', async () => {
    await addLikeCsvParse();
    const { result, compiler } = await compileFrom('csvish/node-only');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message:
        "csvish/node-only: csvish exports ./node-only only for other environments; nothing is exported there for the conditions the sandbox's bundler uses (browser, import, module, default).",
    });
    expect(compiler.stats().bundles).toBe(0);
  });

  it('refuses an exported subpath whose file is not JavaScript', async () => {
    await addLikeCsvParse();
    const { result } = await compileFrom('csvish/package.json');
    expect(result.ok ? undefined : result.message).toBe(
      `csvish/package.json's entry file node_modules/csvish/package.json is not JavaScript; the "npm" field must name a package whose entry is a .js, .mjs or .cjs file.`,
    );
  });

  const escapes: Array<[string, string]> = [
    ['../neighbour/index.js', 'a parent directory'],
    ['./node_modules/inner/index.js', 'a nested package'],
    ['./%2e%2e/neighbour/index.js', 'an encoded parent directory'],
    ['/etc/passwd', 'an absolute path'],
    ['./a/../../neighbour/index.js', 'a climb after a segment'],
  ];
  for (const [target, what] of escapes) {
    it(`refuses an exports target that leaves the package through ${what} (${target})`, async () => {
      await compiling.fx.addPackage('node_modules/neighbour', {
        'package.json': pkg('neighbour', { type: 'module' }),
        'index.js': 'export const stolen = 1;\n',
      });
      await compiling.fx.addPackage('node_modules/leaky', {
        'package.json': pkg('leaky', { type: 'module', exports: { '.': './index.js', './x': target }, dependencies: { neighbour: '1.0.0', inner: '1.0.0' } }),
        'index.js': 'export const fine = 1;\n',
        'node_modules/inner/package.json': JSON.stringify(pkg('inner', { type: 'module' })),
        'node_modules/inner/index.js': 'export const inner = 1;\n',
      });
      const { result, compiler } = await compileFrom('leaky/x');
      expect(result).toEqual({
        ok: false,
        code: 'npm-bundle-failed',
        message: `leaky/x: leaky's "exports" maps ./x to ${JSON.stringify(target)}, which is outside the package; an exported subpath must name a file inside its package.`,
      });
      expect(compiler.stats().bundles).toBe(0);
    });
  }

  it('refuses an exported file that is a symlink to another package of the closure', async () => {
    await compiling.fx.addPackage('node_modules/neighbour', { 'package.json': pkg('neighbour', { type: 'module' }), 'index.js': 'export const stolen = 1;\n' });
    await compiling.fx.addPackage('node_modules/linky', {
      'package.json': pkg('linky', { type: 'module', exports: { './x': './x.js' }, dependencies: { neighbour: '1.0.0' } }),
    });
    await fs.symlink(path.join(compiling.fx.root, 'node_modules/neighbour/index.js'), path.join(compiling.fx.root, 'node_modules/linky/x.js'));
    const { result } = await compileFrom('linky/x');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'linky/x resolves to node_modules/neighbour/index.js, outside the linky package; a subpath must name a file of the package itself.',
    });
  });

  it('refuses an exported file that is a symlink out of the install root', async () => {
    const secret = path.join(compiling.fx.base, 'secret.js');
    await fs.writeFile(secret, 'export const secret = "TOKEN-5e1f";\n');
    await compiling.fx.addPackage('node_modules/linky', { 'package.json': pkg('linky', { type: 'module', exports: { './x': './x.js' } }) });
    await fs.symlink(secret, path.join(compiling.fx.root, 'node_modules/linky/x.js'));
    const { result } = await compileFrom('linky/x');
    expect(result).toEqual({ ok: false, code: 'npm-bundle-failed', message: 'linky/x imports linky/x, which resolves outside the install root.' });
    expect(JSON.stringify(result)).not.toContain('TOKEN-5e1f');
  });

  it('refuses an exported file that is missing from the installed package', async () => {
    await compiling.fx.addPackage('node_modules/thin', { 'package.json': pkg('thin', { type: 'module', exports: { './x': './dist/x.js' } }) });
    const { result } = await compileFrom('thin/x');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'thin/x: thin exports ./x as ./dist/x.js, which is missing from the installed package.',
    });
  });
});

describe('a subpath of a package without an exports map', () => {
  it('names a file inside the package, with or without its extension, or a folder with an index', async () => {
    await compiling.fx.addPackage('node_modules/plain', {
      'package.json': pkg('plain', { main: 'index.js' }),
      'index.js': 'module.exports = { whole: true };\n',
      'non-secure/index.js': 'exports.nanoid = (n) => "x".repeat(n || 21);\n',
      'lib/sync.mjs': 'export const sync = () => "sync";\n',
    });
    const folder = await compileFrom('plain/non-secure', 'p1');
    if (!folder.result.ok) throw new Error(folder.result.message);
    expect(await engineExports(folder.result.value.source)).toEqual(['default', 'nanoid']);
    const noExt = await compileFrom('plain/lib/sync', 'p2');
    if (!noExt.result.ok) throw new Error(noExt.result.message);
    expect(await engineExports(noExt.result.value.source)).toEqual(['sync']);
    const withExt = await compileFrom('plain/lib/sync.mjs', 'p3');
    if (!withExt.result.ok) throw new Error(withExt.result.message);
    expect(await engineExports(withExt.result.value.source)).toEqual(['sync']);
  });

  it('refuses a subpath with no file there', async () => {
    await compiling.fx.addPackage('node_modules/plain', { 'package.json': pkg('plain'), 'index.js': 'module.exports = 1;\n' });
    const { result, compiler } = await compileFrom('plain/missing');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'plain/missing: plain has no file or folder at ./missing (it has no "exports" map, so a subpath names a file inside the package).',
    });
    expect(compiler.stats().bundles).toBe(0);
  });

  it('refuses a file that is a symlink to a file of another package of the closure', async () => {
    await compiling.fx.addPackage('node_modules/neighbour', { 'package.json': pkg('neighbour', { type: 'module' }), 'index.js': 'export const stolen = 1;\n' });
    await compiling.fx.addPackage('node_modules/plain', {
      'package.json': pkg('plain', { dependencies: { neighbour: '1.0.0' } }),
      'index.js': 'module.exports = 1;\n',
    });
    await fs.symlink(path.join(compiling.fx.root, 'node_modules/neighbour/index.js'), path.join(compiling.fx.root, 'node_modules/plain/borrowed.js'));
    const { result } = await compileFrom('plain/borrowed.js');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: 'plain/borrowed.js resolves to node_modules/neighbour/index.js, outside the plain package; a subpath must name a file of the package itself.',
    });
  });

  it('refuses a subpath into a package nested inside it', async () => {
    await compiling.fx.addPackage('node_modules/plain', {
      'package.json': pkg('plain'),
      'index.js': 'module.exports = 1;\n',
      'vendor/node_modules/x/index.js': 'module.exports = 2;\n',
    });
    const { result } = await compileFrom('plain/vendor/node_modules/x');
    expect(result).toMatchObject({ ok: false, code: 'npm-bundle-failed', message: expect.stringMatching(/is not a plain subpath of plain/) });
  });
});

describe('a subpath of a package the pack does not declare', () => {
  it('refuses a hoisted package that is not among the dependencies, naming the package', async () => {
    await addLikeCsvParse();
    const packDir = await compiling.fx.addPackage('node_modules/the-pack', {
      'package.json': pkg('the-pack', { dependencies: { other: '1.0.0' } }),
    });
    const compiler = createNpmCompiler({ root: compiling.fx.root });
    const result = await compiler.compile({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'csvish/browser/esm/sync', specifier: 'the-pack' });
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message:
        'csvish/browser/esm/sync is a subpath of csvish, which is not among the dependencies of the-pack; the "npm" field must name the pack itself or a package in its package.json dependencies (optionally with a subpath it exports).',
    });
    expect(compiler.stats().bundles).toBe(0);
  });

  it('refuses a subpath of a package that is not installed', async () => {
    const { result } = await compileFrom('absent/sub');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: "absent is not installed in the pack's node_modules or the install root; add it to the pack's dependencies.",
    });
  });
});

describe('the cache and the graph digest include the subpath', () => {
  it('two subpaths of one package get their own cache entries and digests; each warm compile bundles nothing', async () => {
    await compiling.fx.addPackage('node_modules/twin', {
      'package.json': pkg('twin', { type: 'module', exports: { './a': './same.js', './b': './same.js' } }),
      'same.js': 'export const same = 1;\n',
    });
    const packDir = await compiling.fx.addPack('the-pack', 'twin');
    const req = (npmName: string) => ({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName, specifier: 'the-pack' });
    const cold = createNpmCompiler({ root: compiling.fx.root });
    const a = await cold.compile(req('twin/a'));
    const b = await cold.compile(req('twin/b'));
    if (!a.ok || !b.ok) throw new Error('expected both to compile');
    expect(a.value.inputsDigest).not.toBe(b.value.inputsDigest);
    expect((await fs.readdir(path.join(compiling.fx.root, CACHE_DIR))).filter((f) => f.endsWith('.json'))).toHaveLength(2);

    const warm = createNpmCompiler({ root: compiling.fx.root });
    expect(await warm.compile(req('twin/a'))).toEqual(a);
    expect(await warm.compile(req('twin/b'))).toEqual(b);
    expect(warm.stats()).toEqual({ bundles: 0, cacheHits: 2, probes: 0 });
  });

  it('a changed exports map is a miss: the warm compile follows it to the new file', async () => {
    await compiling.fx.addPackage('node_modules/moving', {
      'package.json': pkg('moving', { type: 'module', exports: { './x': './one.js' } }),
      'one.js': 'export const which = "one";\n',
      'two.js': 'export const which = "two";\n',
    });
    const { result: first } = await compileFrom('moving/x');
    if (!first.ok) throw new Error(first.message);
    expect(first.value.source).toContain('"one"');
    await compiling.fx.addPackage('node_modules/moving', { 'package.json': pkg('moving', { type: 'module', exports: { './x': './two.js' } }) });
    const again = createNpmCompiler({ root: compiling.fx.root });
    const packDir = path.join(compiling.fx.root, 'node_modules', 'the-pack');
    const second = await again.compile({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'moving/x', specifier: 'the-pack' });
    if (!second.ok) throw new Error(second.message);
    expect(second.value.source).toContain('"two"');
    expect(again.stats().cacheHits).toBe(0);
  });
});
