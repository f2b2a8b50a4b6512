// Issue 27 part 2, items 2 and 3, on hand-made packages shaped like real ones: `require` in a
// UMD or feature-detect branch (or in a function import does not call) is a warning and the
// admission probe decides; a bundle whose initialisation really calls require, compiles code
// (eval, new Function with any body but the global-object idiom) or uses Intl is skipped with a
// sentence naming why, with the engine's own error kept. Real esbuild, the real probe (quickjs-ng
// with the real guest prelude), so each mapped sentence is pinned to the text the engine and the
// prelude really produce.

import { describe, expect, it } from 'vitest';
import type { PackageFiles } from '../testing/fixture-root.ts';
import { useCompilerFixture } from '../testing/compiler-fixture.ts';

const compiling = useCompilerFixture();
const { compileFrom, engineExports } = compiling;

const NO_CODE = 'which the sandbox does not allow: no code is generated inside the sandbox';

/** Compile package `name` (CommonJS unless `files` says `type: module`) as the one module of a pack. */
async function compile(name: string, files: PackageFiles, type?: 'module', packName = 'the-pack') {
  await compiling.fx.addPackage(`node_modules/${name}`, { ...files, 'package.json': { name, version: '1.0.0', ...(type ? { type } : {}) } });
  return (await compileFrom(name, packName)).result;
}

describe('require in a bundle: a warning, the probe decides', () => {
  it('admits a UMD wrapper that feature-tests require (the shape of pluralize), with a warning', async () => {
    const result = await compile('umdish', {
      'index.js': [
        '(function (root, factory) {',
        '  if (typeof require === "function" && typeof exports === "object" && typeof module === "object") module.exports = factory();',
        '  else if (typeof define === "function" && define.amd) define(function () { return factory(); });',
        '  else root.umdish = factory();',
        '})(this, function () { return { shout: function (s) { return s.toUpperCase(); } }; });',
      ].join('\n'),
    });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^umdish refers to require \(CommonJS\), which the sandbox does not have: it checks for it first in \d+ places\.$/),
    ]);
    // esbuild turns `typeof require` into `typeof __require` (its shim, a function), so the CommonJS
    // branch runs; cjs-module-lexer cannot name `module.exports = factory()`, so default only.
    expect(await engineExports(result.value.source)).toEqual(['default']);
  });

  it('admits a package that requires only inside a function the import does not call', async () => {
    const result = await compile('lazyreq', { 'index.js': 'export function load(name) { return require(name); }\nexport const ready = true;\n' }, 'module');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toHaveLength(1);
    expect(await engineExports(result.value.source)).toEqual(['load', 'ready']);
  });

  it('skips a package whose initialisation really calls require: the probe runs it and it throws', async () => {
    const result = await compile('needsreq', {
      'index.js': 'var which = ["./impl", "js"].join(".");\nmodule.exports = require(which);\n',
      'impl.js': 'module.exports = 1;\n',
    });
    expect(result).toEqual({
      ok: false,
      code: 'npm-probe-failed',
      message: expect.stringMatching(
        /^needsreq loads CommonJS modules at run time \(require\), which the sandbox does not have: only what the bundler resolves statically is included\. Importing it in the sandbox failed with Error: Dynamic require of "\.\/impl\.js" is not supported \(in the-pack \(npm needsreq\), line \d+, column \d+\)$/,
      ),
    });
  });
});

describe('code generated at run time', () => {
  it('skips new Function with a real body at the top level, by the static scan', async () => {
    const result = await compile('adder', { 'index.js': 'export const add = new Function("a", "b", "return a + b");\n' }, 'module');
    expect(result).toEqual({
      ok: false,
      code: 'npm-forbidden-global',
      message: expect.stringMatching(
        new RegExp(`^adder compiles code at run time \\(new Function\\), ${NO_CODE}; it does so when it is imported \\(at bundle line 1:\\d+\\)\\.$`),
      ),
    });
  });

  it('skips Function(body) run inside a lazy CommonJS wrapper, by the probe, keeping the engine error', async () => {
    const result = await compile('rowparser', { 'index.js': 'module.exports = { row: Function("d", "return { a: d[0] };") };\n' });
    expect(result).toEqual({
      ok: false,
      code: 'npm-probe-failed',
      message: expect.stringMatching(
        new RegExp(
          `^rowparser compiles code at run time \\(new Function\\), ${NO_CODE}\\. Importing it in the sandbox failed with TypeError: Function constructor is not available in the sandbox: code cannot be generated at run time\\. \\(in the-pack \\(npm rowparser\\), line \\d+, column \\d+\\)$`,
        ),
      ),
    });
  });

  it('skips eval and the async Function constructor at initialisation with the same sentence', async () => {
    const evalResult = await compile('evaler', { 'index.js': 'module.exports = { two: (0, eval)("1 + 1") };\n' });
    expect(evalResult.ok ? '' : evalResult.message).toMatch(
      new RegExp(`^evaler compiles code at run time \\(eval\\), ${NO_CODE}\\. Importing it in the sandbox failed with ReferenceError: eval is not defined`),
    );
    const asyncResult = await compile(
      'asyncgen',
      { 'index.js': 'var AF = (async function () {}).constructor;\nmodule.exports = { f: AF("return 1") };\n' },
      undefined,
      'other-pack',
    );
    expect(asyncResult.ok ? '' : asyncResult.message).toMatch(
      new RegExp(
        `^asyncgen compiles code at run time \\(new Function\\), ${NO_CODE}\\. Importing it in the sandbox failed with TypeError: AsyncFunction constructor is not available`,
      ),
    );
  });

  it('admits Function.prototype and instanceof Function (lodash reads both at import), which compile nothing', async () => {
    const result = await compile(
      'fnproto',
      {
        'index.js':
          'var toSource = Function.prototype.toString;\nexport const isFn = (x) => x instanceof Function;\nexport const native = typeof toSource === "function";\n',
      },
      'module',
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([]);
    expect(await engineExports(result.value.source)).toEqual(['isFn', 'native']);
  });

  it('leaves the exact global-object idiom Function("return this") to the probe, which the prelude answers with globalThis', async () => {
    const result = await compile('globalish', { 'index.js': 'export const g = Function("return this")();\nexport const same = g === globalThis;\n' }, 'module');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([]);
    expect(await engineExports(result.value.source)).toEqual(['g', 'same']);
  });
});

describe('process.env.NODE_ENV', () => {
  it('is the constant "production", as browser bundlers define it: a package that reads it at import is admitted with no finding', async () => {
    const result = await compile(
      'envy',
      {
        'index.js':
          'export const mode = process.env.NODE_ENV === "production" ? "prod" : "dev";\nexport const checks = process.env.NODE_ENV !== "production";\n',
      },
      'module',
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings).toEqual([]);
    expect(result.value.source).not.toContain('process');
    expect(await engineExports(result.value.source)).toEqual(['checks', 'mode']);
  });

  it('still refuses any other use of process at import', async () => {
    const result = await compile('argv', { 'index.js': 'export const args = process.argv.slice(2);\n' }, 'module');
    expect(result).toMatchObject({
      ok: false,
      code: 'npm-forbidden-global',
      message: expect.stringMatching(/^argv uses process \(Node\) when it is imported/),
    });
  });
});

describe('Intl', () => {
  it('skips an unguarded Intl at the top level, by the static scan', async () => {
    const result = await compile('segments', { 'index.js': 'export const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });\n' }, 'module');
    expect(result).toEqual({
      ok: false,
      code: 'npm-forbidden-global',
      message: expect.stringMatching(
        /^segments uses Intl \(internationalisation\), which the sandbox's engine does not have; it does so when it is imported \(at bundle line 1:\d+\)\.$/,
      ),
    });
  });

  it('skips Intl reached through a lazy CommonJS wrapper, by the probe, keeping the engine error', async () => {
    const result = await compile('collates', { 'index.js': 'var c = new Intl.Collator("en");\nmodule.exports = { sort: (a) => a.sort(c.compare) };\n' });
    expect(result).toEqual({
      ok: false,
      code: 'npm-probe-failed',
      message: expect.stringMatching(
        /^collates uses Intl \(internationalisation\), which the sandbox's engine does not have\. Importing it in the sandbox failed with ReferenceError: Intl is not defined \(in the-pack \(npm collates\), line \d+, column \d+\)$/,
      ),
    });
  });

  it('admits a feature-tested Intl with a warning that names it', async () => {
    const result = await compile('fmt', { 'index.js': 'export const fmt = typeof Intl !== "undefined" ? new Intl.NumberFormat("en") : null;\n' }, 'module');
    if (!result.ok) throw new Error(result.message);
    expect(result.value.warnings.map((w) => w.message)).toEqual([
      "fmt refers to Intl (internationalisation), which the sandbox's engine does not have: it checks for it first in 2 places.",
    ]);
  });
});

describe('other init failures keep the plain reason', () => {
  it('a missing global the sandbox does not decide on purpose reads as before', async () => {
    const result = await compile('lazybuf', { 'index.js': 'module.exports = { t: Buffer.from("x") };\n' });
    expect(result.ok ? '' : result.message).toMatch(/^lazybuf failed to initialize in the sandbox: ReferenceError: Buffer is not defined \(in the-pack/);
  });
});
