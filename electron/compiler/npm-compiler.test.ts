import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { useCompilerFixture } from '../testing/compiler-fixture.ts';
import { COMPILER_ID } from './build-options.ts';
import { CACHE_DIR } from './compile-cache.ts';
import { createNpmCompiler } from './npm-compiler.ts';
import { createProbe } from './probe.ts';

const compiling = useCompilerFixture();
const { compileFrom, engineExports } = compiling;

const pkg = (name: string, extra: object = {}) => ({ name, version: '1.0.0', ...extra });

describe('entry generation', () => {
  it("keeps an ESM package's default and named exports", async () => {
    await compiling.fx.addPackage('node_modules/esm-lib', {
      'package.json': pkg('esm-lib', { type: 'module', exports: { '.': { import: './index.js' } } }),
      'index.js': 'export const one = 1;\nexport function two() { return 2; }\nexport default { three: 3 };\n',
    });
    const { result } = await compileFrom('esm-lib');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.compilerId).toBe(COMPILER_ID);
    expect(result.value.warnings).toEqual([]);
    expect(await engineExports(result.value.source)).toEqual(['default', 'one', 'two']);
  });

  it("keeps a CommonJS package's default and named exports (export * alone yields none)", async () => {
    await compiling.fx.addPackage('node_modules/cjs-lib', {
      'package.json': pkg('cjs-lib', { main: 'main.js' }),
      'main.js':
        'exports.parse = function (s) { return s.split(","); };\nmodule.exports.unparse = (a) => a.join(",");\nObject.defineProperty(exports, "version", { enumerable: true, value: "1" });\nexports.stuff = require("./more.js");\n',
      'more.js': 'module.exports = { x: 1 };\n',
    });
    // The measured failure this guards against: esbuild's `export *` over CommonJS has no names.
    const naive = await esbuild.build({
      absWorkingDir: compiling.fx.root,
      stdin: { contents: 'export * from "cjs-lib";', resolveDir: compiling.fx.root },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['main'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(Object.values(naive.metafile.outputs)[0]?.exports).toEqual([]);

    const { result } = await compileFrom('cjs-lib');
    if (!result.ok) throw new Error(result.message);
    expect(await engineExports(result.value.source)).toEqual(['default', 'parse', 'stuff', 'unparse', 'version']);
  });

  it('follows a CommonJS re-export (module.exports = require("./impl"))', async () => {
    await compiling.fx.addPackage('node_modules/reexp', {
      'package.json': pkg('reexp'),
      'index.js': 'module.exports = require("./impl.js");\n',
      'impl.js': 'exports.hello = () => "hi";\nexports.bye = () => "bye";\n',
    });
    const { result } = await compileFrom('reexp');
    if (!result.ok) throw new Error(result.message);
    expect(await engineExports(result.value.source)).toEqual(['bye', 'default', 'hello']);
  });
});

describe('Node builtins', () => {
  it('skips a package importing node:fs by name', async () => {
    await compiling.fx.addPackage('node_modules/uses-fs', {
      'package.json': pkg('uses-fs', { type: 'module' }),
      'index.js': 'import { readFileSync } from "node:fs";\nexport const read = (p) => readFileSync(p, "utf8");\n',
    });
    const { result } = await compileFrom('uses-fs');
    expect(result).toEqual({
      ok: false,
      code: 'npm-node-builtin',
      message: 'uses-fs imports node:fs (imported by node_modules/uses-fs/index.js); the sandbox has no Node APIs.',
    });
  });

  it('skips a CommonJS dependency requiring "stream" deep in the graph', async () => {
    await compiling.fx.addPackage('node_modules/top', {
      'package.json': pkg('top', { dependencies: { inner: '1.0.0' } }),
      'index.js': 'module.exports = require("inner");\n',
    });
    await compiling.fx.addPackage('node_modules/inner', {
      'package.json': pkg('inner'),
      'index.js': 'const { Readable } = require("stream");\nmodule.exports = { Readable };\n',
    });
    const { result } = await compileFrom('top');
    // The require stays in the bundle (esbuild's shim, which throws in the guest); the probe fails on it.
    expect(result).toEqual({
      ok: false,
      code: 'npm-node-builtin',
      message: 'top requires stream (required by node_modules/inner/index.js) when it is imported; the sandbox has no Node APIs.',
    });
  });

  it("admits a require of a builtin inside a try (seedrandom's crypto), with a warning: the code takes its other path", async () => {
    await compiling.fx.addPackage('node_modules/seedish', {
      'package.json': pkg('seedish', { browser: { crypto: false } }),
      'index.js':
        'var nodecrypto;\ntry { nodecrypto = require("crypto"); } catch (e) {}\nmodule.exports = { strong: !!nodecrypto, seed: () => (nodecrypto ? 1 : 2) };\n',
    });
    const { result } = await compileFrom('seedish');
    if (!result.ok) throw new Error(result.message);
    // esbuild's require shim tests `typeof require` (the scan's warning), and the builtin is named.
    expect(result.value.warnings).toEqual([
      {
        code: 'npm-forbidden-global',
        message: expect.stringMatching(/^seedish refers to require \(CommonJS\), which the sandbox does not have: it checks for it first/),
      },
      {
        code: 'npm-node-builtin',
        message:
          'seedish requires crypto (required by node_modules/seedish/index.js) behind a check (importing it in the sandbox worked); the sandbox has no Node APIs, so such a require throws and the code takes its other path.',
      },
    ]);
    // It initialised in the sandbox (the probe imported it): the require threw inside the try.
    expect(await engineExports(result.value.source)).toEqual(['default']);
  });

  it('still refuses a static import of a builtin, wherever it is', async () => {
    await compiling.fx.addPackage('node_modules/esm-fs', {
      'package.json': pkg('esm-fs', { type: 'module' }),
      'index.js': 'import { readFileSync } from "node:fs";\nexport const read = (p) => readFileSync(p);\n',
    });
    const { result } = await compileFrom('esm-fs');
    expect(result).toEqual({
      ok: false,
      code: 'npm-node-builtin',
      message: 'esm-fs imports node:fs (imported by node_modules/esm-fs/index.js); the sandbox has no Node APIs.',
    });
  });
});

describe('forbidden globals', () => {
  it('rejects a hard reference to Buffer at import time', async () => {
    await compiling.fx.addPackage('node_modules/hard-buffer', {
      'package.json': pkg('hard-buffer', { type: 'module' }),
      'index.js': 'export const magic = Buffer.from("PK").length;\n',
    });
    const { result } = await compileFrom('hard-buffer');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('npm-forbidden-global');
    expect(result.message).toMatch(
      /^hard-buffer uses Buffer \(Node\) when it is imported, at bundle line 1:\d+, without checking that it exists; the sandbox has no Buffer\.$/,
    );
  });

  it('admits a feature-detected Buffer with a warning', async () => {
    await compiling.fx.addPackage('node_modules/soft-buffer', {
      'package.json': pkg('soft-buffer', { type: 'module' }),
      'index.js':
        'export const hasBuffer = typeof Buffer !== "undefined" && Buffer.isBuffer(1);\nexport function toText(x) { return typeof Buffer !== "undefined" ? Buffer.from(x).toString() : String(x); }\n',
    });
    const { result } = await compileFrom('soft-buffer');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([
      { code: 'npm-forbidden-global', message: 'soft-buffer refers to Buffer (Node), which the sandbox does not have: it checks for it first in 4 places.' },
    ]);
  });

  it('warns about a timer used only inside a function the import does not call', async () => {
    await compiling.fx.addPackage('node_modules/later', {
      'package.json': pkg('later', { type: 'module' }),
      'index.js': 'export function delay(f) { setTimeout(f, 1); }\nexport const now = 1;\n',
    });
    const { result } = await compileFrom('later');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([
      {
        code: 'npm-forbidden-global',
        message: 'later refers to setTimeout (timers), which the sandbox does not have: it uses it inside functions in 1 place, which throw if called.',
      },
    ]);
  });

  it('treats a local variable named process as a local, not the global', async () => {
    await compiling.fx.addPackage('node_modules/shadow', {
      'package.json': pkg('shadow', { type: 'module' }),
      'index.js': 'const process = { env: { MODE: "x" } };\nexport const mode = process.env.MODE;\nexport function f(Buffer) { return Buffer; }\n',
    });
    const { result } = await compileFrom('shadow');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([]);
  });

  it('rejects eval at the top level', async () => {
    await compiling.fx.addPackage('node_modules/evil-eval', {
      'package.json': pkg('evil-eval', { type: 'module' }),
      'index.js': 'export const v = eval("1 + 1");\n',
    });
    const { result } = await compileFrom('evil-eval');
    expect(result.ok ? undefined : result.code).toBe('npm-forbidden-global');
  });
});

describe('size cap and admission probe', () => {
  it('skips a bundle over 1 MB minified', async () => {
    const big = crypto.randomBytes(800 * 1024).toString('base64');
    await compiling.fx.addPackage('node_modules/huge', {
      'package.json': pkg('huge', { type: 'module' }),
      'index.js': `export const blob = ${JSON.stringify(big)};\n`,
    });
    const { result } = await compileFrom('huge');
    expect(result).toEqual({ ok: false, code: 'npm-too-large', message: 'huge bundles to 1.0 MB minified, over the 1 MB limit for an npm module.' });
  });

  it("skips a package whose initialization throws, with the probe's error", async () => {
    await compiling.fx.addPackage('node_modules/throws', {
      'package.json': pkg('throws', { type: 'module' }),
      'index.js': 'const cfg = JSON.parse("{}");\nif (!cfg.ok) throw new TypeError("boom at init");\nexport const x = 1;\n',
    });
    const { result } = await compileFrom('throws');
    expect(result).toEqual({
      ok: false,
      code: 'npm-probe-failed',
      message: 'throws failed to initialize in the sandbox: TypeError: boom at init (in the-pack (npm throws), line 1, column 42)',
    });
  });

  it('skips a package that reaches a missing global through a lazy CommonJS wrapper (static scan cannot see it, the probe can)', async () => {
    await compiling.fx.addPackage('node_modules/lazy', {
      'package.json': pkg('lazy'),
      'index.js':
        'function decode(s) { return typeof window === "object" ? window.atob(s) : Buffer.from(s, "base64").toString(); }\nmodule.exports = { table: decode("aGk=") };\n',
    });
    const { result } = await compileFrom('lazy');
    expect(result.ok ? undefined : result).toEqual({
      ok: false,
      code: 'npm-probe-failed',
      message: expect.stringMatching(
        /^lazy failed to initialize in the sandbox: ReferenceError: Buffer is not defined \(in the-pack \(npm lazy\), line 1, column \d+\)$/,
      ),
    });
  });

  it('stops a package that loops forever at import time', async () => {
    await compiling.fx.addPackage('node_modules/spin', {
      'package.json': pkg('spin', { type: 'module' }),
      'index.js': 'let i = 0; while (true) { i++; }\nexport const x = i;\n',
    });
    const packDir = await compiling.fx.addPack('the-pack', 'spin');
    const compiler = createNpmCompiler({ root: compiling.fx.root, probe: createProbe({ deadlineMs: 300 }) });
    const result = await compiler.compile({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'spin', specifier: 'the-pack' });
    expect(result).toEqual({
      ok: false,
      code: 'npm-probe-failed',
      message: 'spin failed to initialize in the sandbox: The code ran longer than its 300 ms time limit and was stopped.',
    });
    // A deadline hit may be machine load, not the module: it is never cached, the next discovery probes again.
    const again = createNpmCompiler({ root: compiling.fx.root, probe: createProbe({ deadlineMs: 300 }) });
    expect(await again.compile({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'spin', specifier: 'the-pack' })).toEqual(result);
    expect(again.stats()).toEqual({ bundles: 2, cacheHits: 0, probes: 1 });
  });

  it('probes in a hardened context: no timers, no Node globals, no eval at import time', async () => {
    await compiling.fx.addPackage('node_modules/grabby', {
      'package.json': pkg('grabby', { type: 'module' }),
      'index.js':
        'export const seen = [typeof setTimeout, typeof process, typeof globalThis.eval].join(",");\nif (seen !== "undefined,undefined,undefined") throw new Error(seen);\n',
    });
    const { result } = await compileFrom('grabby');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings.map((w) => w.message)).toEqual([
      'grabby refers to process (Node), which the sandbox does not have: it checks for it first in 1 place.',
      'grabby refers to setTimeout (timers), which the sandbox does not have: it checks for it first in 1 place.',
    ]);
  });

  it('skips a package that calls a capability at import time: the probe grants none', async () => {
    await compiling.fx.addPackage('node_modules/phones-home', {
      'package.json': pkg('phones-home', { type: 'module' }),
      'index.js': 'export const config = await fetch("https://example.com/config.json");\n',
    });
    const { result } = await compileFrom('phones-home');
    expect(result.ok ? undefined : result.code).toBe('npm-probe-failed');
    expect(result.ok ? '' : result.message).toMatch(/^phones-home failed to initialize in the sandbox: .*fetch/);
  });
});

describe('resolution stays inside the install root', () => {
  const cases: Array<[string, string]> = [
    ['../outside', '"../outside" is not an npm package name; the "npm" field must name a dependency, not a path.'],
    ['/etc/passwd', '"/etc/passwd" is not an npm package name; the "npm" field must name a dependency, not a path.'],
    ['./local', '"./local" is not an npm package name; the "npm" field must name a dependency, not a path.'],
    [
      'lib/../../x',
      '"lib/../../x": "../../x" is not a plain subpath of lib; use segments of letters, digits and . _ ~ + @ - (no ".", ".." or empty segment, no "%", no node_modules), at most 256 characters in all.',
    ],
    [
      'lib/%2e%2e/x',
      '"lib/%2e%2e/x": "%2e%2e/x" is not a plain subpath of lib; use segments of letters, digits and . _ ~ + @ - (no ".", ".." or empty segment, no "%", no node_modules), at most 256 characters in all.',
    ],
    ['Upper', '"Upper" is not an npm package name; the "npm" field must name a dependency, not a path.'],
  ];
  for (const [npmName, message] of cases) {
    it(`refuses npm field ${JSON.stringify(npmName)}`, async () => {
      const packDir = await compiling.fx.addPack('the-pack', 'placeholder');
      const compiler = createNpmCompiler({ root: compiling.fx.root });
      expect(await compiler.compile({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName, specifier: 'the-pack' })).toEqual({
        ok: false,
        code: 'npm-bundle-failed',
        message,
      });
      expect(compiler.stats().bundles).toBe(0);
    });
  }

  it('refuses a package that is a symlink to a directory outside the root', async () => {
    const outside = path.join(compiling.fx.base, 'outside-lib');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'package.json'), JSON.stringify(pkg('linked')));
    await fs.writeFile(path.join(outside, 'index.js'), 'export const secret = 1;\n');
    await fs.symlink(outside, path.join(compiling.fx.root, 'node_modules', 'linked'), 'dir');
    const { result, compiler } = await compileFrom('linked');
    expect(result).toEqual({ ok: false, code: 'npm-bundle-failed', message: 'linked resolves through a symbolic link to a place outside the install root.' });
    expect(compiler.stats().bundles).toBe(0);
  });

  it("refuses a transitive dependency that esbuild would find above the root (the app's own node_modules)", async () => {
    // <base>/node_modules/leak sits above the root, where Node-style lookup would walk to.
    await compiling.fx.addPackage('../node_modules/leak', { 'package.json': pkg('leak', { type: 'module' }), 'index.js': 'export const leaked = 1;\n' });
    await compiling.fx.addPackage('node_modules/wants-leak', {
      'package.json': pkg('wants-leak', { type: 'module' }),
      'index.js': 'export { leaked } from "leak";\n',
    });
    const { result } = await compileFrom('wants-leak');
    expect(result).toEqual({ ok: false, code: 'npm-bundle-failed', message: 'wants-leak imports leak, which resolves outside the install root.' });
  });

  it('does not look for the npm package above the root', async () => {
    await compiling.fx.addPackage('../node_modules/only-above', { 'package.json': pkg('only-above', { type: 'module' }), 'index.js': 'export const x = 1;\n' });
    const { result } = await compileFrom('only-above');
    expect(result).toEqual({
      ok: false,
      code: 'npm-bundle-failed',
      message: "only-above is not installed in the pack's node_modules or the install root; add it to the pack's dependencies.",
    });
  });

  it('refuses a relative import inside the package that climbs out through a symlinked file', async () => {
    const outside = path.join(compiling.fx.base, 'secret.js');
    await fs.writeFile(outside, 'export const secret = 42;\n');
    await compiling.fx.addPackage('node_modules/sneaky', {
      'package.json': pkg('sneaky', { type: 'module' }),
      'index.js': 'export { secret } from "./secret.js";\n',
    });
    await fs.symlink(outside, path.join(compiling.fx.root, 'node_modules', 'sneaky', 'secret.js'));
    const { result } = await compileFrom('sneaky');
    expect(result).toEqual({ ok: false, code: 'npm-bundle-failed', message: 'sneaky imports ./secret.js, which resolves outside the install root.' });
  });

  it("prefers the pack's nested copy over the hoisted one, as Node would", async () => {
    await compiling.fx.addPackage('node_modules/dual', { 'package.json': pkg('dual', { type: 'module' }), 'index.js': 'export const which = "hoisted";\n' });
    await compiling.fx.addPackage('node_modules/@scope/pk/node_modules/dual', {
      'package.json': pkg('dual', { type: 'module' }),
      'index.js': 'export const which = "nested";\nif (which !== "nested") throw new Error("wrong copy");\n',
    });
    const nested = await compiling.fx.addPackage('node_modules/@scope/pk', { 'package.json': pkg('@scope/pk', { dependencies: { dual: '1.0.0' } }) });
    const hoistedOnly = await compiling.fx.addPack('other-pack', 'dual');
    const compiler = createNpmCompiler({ root: compiling.fx.root });
    const a = await compiler.compile({ packDir: nested, packName: '@scope/pk', packVersion: '1.0.0', npmName: 'dual', specifier: '@scope/pk' });
    const b = await compiler.compile({ packDir: hoistedOnly, packName: 'other-pack', packVersion: '1.0.0', npmName: 'dual', specifier: 'other-pack' });
    if (!a.ok || !b.ok) throw new Error('expected both to compile');
    expect(a.value.source).toContain('"nested"');
    expect(b.value.source).toContain('"hoisted"');
    expect(a.value.inputsDigest).not.toBe(b.value.inputsDigest);
  });
});

describe('content-addressed cache', () => {
  async function setup() {
    await compiling.fx.addPackage('node_modules/cached', {
      'package.json': pkg('cached', { type: 'module' }),
      'index.js': 'import { helper } from "./helper.js";\nexport const v = helper();\n',
      'helper.js': 'export const helper = () => 1;\n',
    });
    const packDir = await compiling.fx.addPack('the-pack', 'cached');
    const req = { packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'cached', specifier: 'the-pack' };
    let builds = 0;
    const counting = {
      version: esbuild.version,
      build: (o: Parameters<typeof esbuild.build>[0] & { write: false; metafile: true }) => {
        builds++;
        return esbuild.build(o);
      },
    };
    const fresh = () => createNpmCompiler({ root: compiling.fx.root, esbuild: counting });
    return { req, fresh, builds: () => builds };
  }

  it('a warm compile (fresh compiler, same root) runs no esbuild bundle and no probe', async () => {
    const { req, fresh, builds } = await setup();
    const cold = fresh();
    const first = await cold.compile(req);
    expect(builds()).toBe(2);
    expect(cold.stats()).toEqual({ bundles: 2, cacheHits: 0, probes: 1 });
    const warm = fresh();
    const second = await warm.compile(req);
    expect(builds()).toBe(2);
    expect(warm.stats()).toEqual({ bundles: 0, cacheHits: 1, probes: 0 });
    expect(second).toEqual(first);
  });

  it('re-bundles when an input file changes, and when the cache entry is damaged or tampered with', async () => {
    const { req, fresh, builds } = await setup();
    const first = await fresh().compile(req);
    await fs.writeFile(path.join(compiling.fx.root, 'node_modules/cached/helper.js'), 'export const helper = () => 2;\n');
    const changed = await fresh().compile(req);
    expect(builds()).toBe(4);
    if (!first.ok || !changed.ok) throw new Error('expected ok');
    expect(changed.value.inputsDigest).not.toBe(first.value.inputsDigest);
    expect(changed.value.source).toContain('2');

    const dir = path.join(compiling.fx.root, CACHE_DIR);
    const [file] = (await fs.readdir(dir)).filter((f) => f.endsWith('.json'));
    if (!file) throw new Error('no cache entry');
    const entry = JSON.parse(await fs.readFile(path.join(dir, file), 'utf8')) as { inputs: Array<{ path: string }>; outcome: { source: string } };
    // A path that climbs out of the root is refused on read-back; the entry is treated as a miss.
    entry.inputs[0] = { ...entry.inputs[0], path: '../../etc/hosts' } as { path: string };
    entry.outcome.source = 'export const pwned = 1;';
    await fs.writeFile(path.join(dir, file), JSON.stringify(entry));
    const afterTamper = await fresh().compile(req);
    expect(builds()).toBe(6);
    expect(afterTamper).toEqual(changed);

    await fs.writeFile(path.join(dir, file), '{ not json');
    expect(await fresh().compile(req)).toEqual(changed);
    expect(builds()).toBe(8);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('re-bundles when a nearer copy of a dependency appears or a package.json redirects, but not when only the lockfile changes', async () => {
    const { req, fresh, builds } = await setup();
    const first = await fresh().compile(req);
    await fs.writeFile(path.join(compiling.fx.root, 'package-lock.json'), '{"lockfileVersion":3,"changed":true}');
    const warm = fresh();
    expect(await warm.compile(req)).toEqual(first);
    expect(warm.stats().cacheHits).toBe(1);
    expect(builds()).toBe(2);

    // npm nests a different copy under the pack: the listed files are unchanged, resolution is not.
    await compiling.fx.addPackage('node_modules/the-pack/node_modules/cached', {
      'package.json': pkg('cached', { type: 'module' }),
      'index.js': 'export const v = "nested copy";\n',
    });
    const shadowed = await fresh().compile(req);
    expect(builds()).toBe(4);
    if (!shadowed.ok) throw new Error(shadowed.message);
    expect(shadowed.value.source).toContain('nested copy');

    // The used package's package.json now points its entry elsewhere.
    await compiling.fx.addPackage('node_modules/the-pack/node_modules/cached', {
      'package.json': pkg('cached', { type: 'module', main: 'other.js' }),
      'other.js': 'export const v = "redirected";\n',
    });
    const redirected = await fresh().compile(req);
    expect(builds()).toBe(6);
    if (!redirected.ok) throw new Error(redirected.message);
    expect(redirected.value.source).toContain('redirected');
  });

  it('re-bundles when a nearer copy of a transitive dependency appears (the lookup of the top package is unchanged)', async () => {
    await compiling.fx.addPackage('node_modules/top', {
      'package.json': pkg('top', { type: 'module', dependencies: { dep: '1.0.0' } }),
      'index.js': 'export { which } from "dep";\n',
    });
    await compiling.fx.addPackage('node_modules/dep', { 'package.json': pkg('dep', { type: 'module' }), 'index.js': 'export const which = "hoisted dep";\n' });
    const packDir = await compiling.fx.addPack('the-pack', 'top');
    const req = { packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'top', specifier: 'the-pack' };
    await createNpmCompiler({ root: compiling.fx.root }).compile(req);
    await compiling.fx.addPackage('node_modules/top/node_modules/dep', {
      'package.json': pkg('dep', { type: 'module' }),
      'index.js': 'export const which = "nested dep";\n',
    });
    const again = createNpmCompiler({ root: compiling.fx.root });
    const result = await again.compile(req);
    expect(again.stats()).toEqual({ bundles: 2, cacheHits: 0, probes: 1 });
    expect(result.ok && result.value.source.includes('nested dep')).toBe(true);
  });

  it('caches a skip decided after bundling (the probe is not re-run on a warm start)', async () => {
    await compiling.fx.addPackage('node_modules/throws', { 'package.json': pkg('throws', { type: 'module' }), 'index.js': 'throw new Error("nope");\n' });
    const { result: first } = await compileFrom('throws');
    const packDir = path.join(compiling.fx.root, 'node_modules', 'the-pack');
    const warm = createNpmCompiler({ root: compiling.fx.root });
    const second = await warm.compile({ packDir, packName: 'the-pack', packVersion: '1.0.0', npmName: 'throws', specifier: 'the-pack' });
    expect(second).toEqual(first);
    expect(warm.stats()).toEqual({ bundles: 0, cacheHits: 1, probes: 0 });
  });
});
