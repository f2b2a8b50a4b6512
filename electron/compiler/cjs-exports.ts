// What a package's entry module exports, found without running it. esbuild cannot give an ESM
// bundle static names for a CommonJS package (`export * from "papaparse"` yields no exports at
// all), so the compiler asks here and writes the entry itself. CommonJS names come from
// cjs-module-lexer — the lexer Node uses for the same job, so a pack gets the named exports it
// would get from `import { x } from "pkg"` in Node — following its re-exports through the files
// esbuild already resolved.
//
// Everything here reads package files an untrusted pack chose, so nothing may throw out of it: an
// entry that is not JavaScript (a JSON `main`), does not parse, or cannot be read becomes a tagged
// `npm-bundle-failed` with the reason, and the module is skipped.

import fs from 'node:fs/promises';
import path from 'node:path';
import { parse as parseJs } from 'acorn';
import { initSync, parse as lexCjs } from 'cjs-module-lexer';
import type * as esbuild from 'esbuild';
import { fail, ok, type Result } from '../../shared/protocol/index.ts';

export type EntryShape = { readonly format: 'esm'; readonly hasDefault: boolean } | { readonly format: 'cjs'; readonly names: readonly string[] };

const IDENTIFIER_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_REEXPORT_DEPTH = 16;
let lexerReady = false;

function esmHasDefault(source: string): boolean {
  const ast = parseJs(source, { ecmaVersion: 'latest', sourceType: 'module' });
  for (const node of ast.body) {
    if (node.type === 'ExportDefaultDeclaration') return true;
    if (node.type === 'ExportNamedDeclaration') {
      for (const spec of node.specifiers) {
        const exported = spec.exported;
        const name = exported.type === 'Identifier' ? exported.name : String(exported.value);
        if (name === 'default') return true;
      }
    }
  }
  return false;
}

async function cjsNames(rootReal: string, metafile: esbuild.Metafile, file: string, seen: Set<string>, depth: number): Promise<string[]> {
  if (seen.has(file) || depth > MAX_REEXPORT_DEPTH) return [];
  seen.add(file);
  const source = await fs.readFile(path.join(rootReal, file), 'utf8');
  if (file.endsWith('.json')) return [];
  const lexed = lexCjs(source);
  const names = [...lexed.exports];
  const imports = metafile.inputs[file]?.imports ?? [];
  for (const request of lexed.reexports) {
    const target = imports.find((imp) => imp.original === request);
    if (target) names.push(...(await cjsNames(rootReal, metafile, target.path, seen, depth + 1)));
  }
  return names;
}

const JS_ENTRY = /\.(?:js|mjs|cjs)$/;

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The shape of `entryFile` (a metafile input path, relative to the root) as bundled. ESM entries
 * are parsed with acorn only to learn whether they have a default export, which `export *` does
 * not carry.
 */
export async function entryShape(
  rootReal: string,
  metafile: esbuild.Metafile,
  entryFile: string,
  npmName: string,
): Promise<Result<EntryShape, 'npm-bundle-failed'>> {
  if (!JS_ENTRY.test(entryFile)) {
    return fail(
      'npm-bundle-failed',
      `${npmName}'s entry file ${entryFile} is not JavaScript; the "npm" field must name a package whose entry is a .js, .mjs or .cjs file.`,
    );
  }
  const input = metafile.inputs[entryFile];
  if (input?.format === 'cjs') {
    try {
      if (!lexerReady) {
        initSync();
        lexerReady = true;
      }
      const names = await cjsNames(rootReal, metafile, entryFile, new Set(), 0);
      const usable = [...new Set(names)].filter((n) => n !== 'default' && n !== '__esModule' && IDENTIFIER_NAME.test(n)).sort();
      return ok({ format: 'cjs', names: usable });
    } catch (error) {
      return fail('npm-bundle-failed', `${npmName}'s entry file ${entryFile} could not be read for its exports: ${reason(error)}.`);
    }
  }
  try {
    const source = await fs.readFile(path.join(rootReal, entryFile), 'utf8');
    return ok({ format: 'esm', hasDefault: esmHasDefault(source) });
  } catch (error) {
    return fail('npm-bundle-failed', `${npmName}'s entry file ${entryFile} could not be parsed: ${reason(error)}.`);
  }
}

/** The first pass's entry: enough to make esbuild resolve the package and list its files. */
export function resolutionEntry(npmName: string): string {
  return `import * as ns from ${JSON.stringify(npmName)};\nexport default ns;\n`;
}

/** The real entry: keeps a CommonJS package's default and named exports, an ESM package's own. */
export function generatedEntry(npmName: string, shape: EntryShape): string {
  const from = JSON.stringify(npmName);
  if (shape.format === 'esm') {
    return `export * from ${from};\n${shape.hasDefault ? `export { default } from ${from};\n` : ''}`;
  }
  const lines = [`import __sandboxDefault, * as __sandboxNs from ${from};`, 'export default __sandboxDefault;'];
  shape.names.forEach((name, i) => {
    lines.push(`const __sandboxE${i} = __sandboxNs[${JSON.stringify(name)}];`, `export { __sandboxE${i} as ${name} };`);
  });
  return `${lines.join('\n')}\n`;
}
