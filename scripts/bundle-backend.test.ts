// The bundle's coverage check: the rule that makes "an asset the code loads that is not registered
// fails the build" true. Fed the shapes esbuild emits for each kind of load.

import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { uncoveredReferences } from './bundle-backend.mjs';

const check = (text: string, registered: string[] = ['emscripten-module.wasm']): string[] =>
  (uncoveredReferences as (t: string, r: Set<string>) => string[])(text, new Set(registered));

describe('bundle coverage check', () => {
  it('accepts a registered file loaded relative to the bundle', () => {
    expect(check('O = new URL("emscripten-module.wasm", import.meta.url).href;')).toEqual([]);
    expect(check("new URL('./emscripten-module.wasm', import.meta.url)")).toEqual([]);
  });

  it('fails a file loaded relative to the bundle that is not registered', () => {
    expect(check('new Worker(new URL("./sandbox-worker.ts", import.meta.url))')).toEqual([
      'new URL("./sandbox-worker.ts", import.meta.url) is not a registered asset',
    ]);
  });

  it("fails any other use of the bundle's location", () => {
    expect(check('const here = path.dirname(fileURLToPath(import.meta.url));')).toEqual(['unregistered data reference: import.meta.url));']);
    expect(check('const p = import.meta.resolve("left-pad/data.json");')).toEqual(['unregistered data reference: import.meta.resolve("left-pad/data.json");']);
  });

  it('accepts the registry base and the dev-only tsx bootstrap, exactly', () => {
    expect(check('var SANDBOX_PACKS_ASSET_BASE2 = import.meta.url;')).toEqual([]);
    expect(check('const tsx = import.meta.resolve("tsx/esm/api");')).toEqual([]);
    expect(check('var OTHER_BASE = import.meta.url;')).toEqual(['unregistered data reference: import.meta.url;']);
  });

  it('fails a run-time import of a package that is neither bundled nor staged', () => {
    expect(check('import { app } from "electron";\nimport fs from "node:fs";\nimport path from "path";')).toEqual([]);
    // esbuild goes through esbuild-runtime.ts; a bare import would find its binary inside the asar.
    expect(check('import * as esbuild from "esbuild";')).toEqual(['the bundle imports "esbuild" at run time, which is neither bundled nor a registered asset']);
    expect(check('import sharp from "sharp";')).toEqual(['the bundle imports "sharp" at run time, which is neither bundled nor a registered asset']);
    expect(check('const m = await import("@scope/native");')).toEqual([
      'the bundle imports "@scope/native" at run time, which is neither bundled nor a registered asset',
    ]);
    expect(check('var x = require("bufferutil");')).toEqual(['the bundle imports "bufferutil" at run time, which is neither bundled nor a registered asset']);
  });

  it('reads imports from the syntax, not from comments or strings that spell one', () => {
    // Shapes from @modelcontextprotocol/sdk's bundled ajv: a JSDoc example and generated-code templates.
    const text = [
      "/** import { Ajv } from 'ajv'; */",
      'uri.code = \'require("ajv/dist/runtime/uri").default\';',
      'const f = (0, codegen_1._)`require("ajv-formats/dist/formats").${name}`;',
      'var real = require("bufferutil");',
    ].join('\n');
    expect(check(text)).toEqual(['the bundle imports "bufferutil" at run time, which is neither bundled nor a registered asset']);
  });

  it("catches the loads in esbuild's real ESM output, not only in hand-written text", async () => {
    const built = await esbuild.build({
      stdin: {
        contents: [
          'import { readFileSync } from "node:fs";',
          'import { fileURLToPath } from "node:url";',
          'export const table = readFileSync(new URL("./table.bin", import.meta.url));',
          'export const engine = new URL("emscripten-module.wasm", import.meta.url);',
          'export const here = fileURLToPath(import.meta.url);',
        ].join('\n'),
        loader: 'js',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
    });
    expect(check(built.outputFiles[0]!.text)).toEqual([
      'new URL("./table.bin", import.meta.url) is not a registered asset',
      'unregistered data reference: import.meta.url);',
    ]);
  });
});
