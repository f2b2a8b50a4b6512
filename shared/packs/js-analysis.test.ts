import { describe, expect, it } from 'vitest';
import { analyzeJs, type JsAnalysisContext } from './js-analysis.ts';

const ctx: JsAnalysisContext = {
  packName: '@acme/geo',
  publicSpecifiers: new Set(['@acme/geo', '@acme/geo/extra', '@acme/geo/simplify-wasm']),
  internalPaths: new Set(['sandbox/util.js', 'lib/deep/x.js']),
  filePath: 'sandbox/geo.js',
  displayName: 'sandbox/geo.js',
};

const run = (source: string, c: JsAnalysisContext = ctx) => analyzeJs(source, c);

describe('analyzeJs', () => {
  it('maps every static import form to its target', () => {
    const result = run([
      "import { a } from './util.js';",
      "import '@acme/geo/extra';",
      "export { b } from '../lib/deep/x.js';",
      "export * from '@acme/geo/simplify-wasm';",
      "import * as self from '@acme/geo';",
      'export const c = 1;',
    ].join('\n'));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.fromEntries(result.value.imports)).toEqual({
      './util.js': { kind: 'internal', path: 'sandbox/util.js' },
      '@acme/geo/extra': { kind: 'public', specifier: '@acme/geo/extra' },
      '../lib/deep/x.js': { kind: 'internal', path: 'lib/deep/x.js' },
      '@acme/geo/simplify-wasm': { kind: 'public', specifier: '@acme/geo/simplify-wasm' },
      '@acme/geo': { kind: 'public', specifier: '@acme/geo' },
    });
  });

  it.each([
    ['export const x = ;', 'js-syntax-error', 'sandbox/geo.js: Unexpected token (1:17)'],
    ['const x = 1;\n  await import("./util.js");', 'js-dynamic-import', 'sandbox/geo.js:2:9: import() is not allowed; use a static import of a file of this pack.'],
    ['const s = "x"; import(s);', 'js-dynamic-import', 'sandbox/geo.js:1:16: import() is not allowed; use a static import of a file of this pack.'],
    ['const fs = require("fs");', 'js-require', 'sandbox/geo.js:1:12: require is not available; use a static import.'],
    ['export const r = typeof require;', 'js-require', 'sandbox/geo.js:1:25: require is not available; use a static import.'],
    ['export const m = module.require("x");', 'js-require', 'sandbox/geo.js:1:18: module.require is not available; use a static import.'],
    ['export const m = module["require"]("x");', 'js-require', 'sandbox/geo.js:1:18: module.require is not available; use a static import.'],
    ['import fs from "node:fs";', 'js-node-import', 'sandbox/geo.js:1:16: import of Node builtin "node:fs"; sandbox code has no Node APIs.'],
    ['import p from "path";', 'js-node-import', 'sandbox/geo.js:1:15: import of Node builtin "path"; sandbox code has no Node APIs.'],
    ['export * from "fs/promises";', 'js-node-import', 'sandbox/geo.js:1:15: import of Node builtin "fs/promises"; sandbox code has no Node APIs.'],
    ['import { callWasm } from "sandbox:wasm-bridge";', 'js-bridge-import', 'sandbox/geo.js:1:26: import of "sandbox:wasm-bridge" is not allowed; import the WASM entry\'s specifier instead.'],
    ['import x from "lodash";', 'js-import-outside-pack', 'sandbox/geo.js:1:15: import "lodash" is outside the pack; a pack may import only its own files.'],
    ['import x from "@acme/other";', 'js-import-outside-pack', 'sandbox/geo.js:1:15: import "@acme/other" is outside the pack; a pack may import only its own files.'],
    ['import x from "/abs/x.js";', 'js-import-outside-pack', 'sandbox/geo.js:1:15: import "/abs/x.js" is outside the pack; a pack may import only its own files.'],
    ['import x from "../../x.js";', 'js-import-outside-pack', 'sandbox/geo.js:1:15: import "../../x.js": "../../x.js" from "sandbox/geo.js" climbs above the pack root.'],
    ['import x from "./%2e%2e/x.js";', 'js-import-unresolved', 'sandbox/geo.js:1:15: import "./%2e%2e/x.js": "./%2e%2e/x.js" contains percent-encoding.'],
    ['import x from "./extra.js";', 'js-import-unresolved', 'sandbox/geo.js:1:15: import "./extra.js" resolves to "sandbox/extra.js", which is not in the pack\'s "internal" list; list it there, or import a public entry by its specifier.'],
    ['import x from "@acme/geo/sandbox/util.js";', 'js-import-unresolved', 'sandbox/geo.js:1:15: import "@acme/geo/sandbox/util.js" is not a module this pack declares.'],
  ])('%s → %s', (source, code, message) => {
    expect(run(source)).toEqual({ ok: false, code, message });
  });

  it('reports the first problem in source order', () => {
    const result = run('import "lodash";\nrequire("x");');
    expect(result.ok ? undefined : result.code).toBe('js-import-outside-pack');
  });

  it('refuses relative imports from a source without a file (npm bundles)', () => {
    const { filePath: _omit, ...noFile } = ctx;
    expect(run('import "./util.js";', { ...noFile, displayName: '@acme/geo' })).toEqual({
      ok: false,
      code: 'js-import-unresolved',
      message: '@acme/geo:1:8: relative import "./util.js" has no file to be relative to.',
    });
  });

  it('lists statically known export names, and none when a star re-export hides them', () => {
    const named = run([
      'export const a = 1, { b, c: [d, ...e] } = {};',
      'export function f() {}',
      'export class K {}',
      'export default 1;',
      'const g = 1; export { g as h, g as "not an id" };',
      'export * as ns from "./util.js";',
    ].join('\n'));
    expect(named.ok && named.value.exportNames).toEqual(['K', 'a', 'b', 'd', 'default', 'e', 'f', 'h', 'ns']);
    const star = run('export * from "./util.js"; export const x = 1;');
    expect(star.ok && star.value.exportNames).toBeUndefined();
  });

  it('leaves property keys named require alone', () => {
    expect(run('export const o = { require: 1 }; export const v = o.require;').ok).toBe(true);
  });

  it("leaves require in an npm bundle to the compiler's scope-aware scan and probe; authored code still may not name it", () => {
    // The shape esbuild emits for a UMD wrapper's feature test (pluralize, jsonata).
    const bundle =
      'var __require = ((x) => typeof require !== "undefined" ? require : x)(function (x) { throw Error("Dynamic require of " + x); });\nexport const kind = typeof __require === "function" && typeof module === "object" ? "cjs" : "esm";\n';
    const bundled = { packName: 'p', publicSpecifiers: new Set(['p']), internalPaths: new Set<string>(), displayName: 'lib (bundled)', npmBundle: true };
    expect(run(bundle, bundled)).toEqual({ ok: true, value: { imports: new Map(), exportNames: ['kind'] } });
    expect(run('export const m = module.require;', bundled).ok).toBe(true);
    expect(run(bundle, { ...bundled, npmBundle: false })).toMatchObject({ ok: false, code: 'js-require' });
    expect(run(bundle)).toEqual({ ok: false, code: 'js-require', message: 'sandbox/geo.js:1:32: require is not available; use a static import.' });
  });
});
