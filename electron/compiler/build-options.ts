// The one place that says how npm packages become guest modules. Every option that can change
// the output is pinned here, and `compilerId` hashes them together with the esbuild version, so
// a change of options or of esbuild invalidates caches and graph digests instead of silently
// serving an older bundle.
//
// Resolver choice: the guest is a browser-shaped engine without Node and without a DOM, so the
// `browser` condition and field come first. They are what steer packages such as papaparse and
// cheerio away from their Node builds (which import `stream`); anything a browser build still
// assumes (window, document, timers) is caught by the global scan and the admission probe.

import { createHash } from 'node:crypto';
import { version as esbuildVersion } from 'esbuild';

/**
 * Bumped whenever entry generation, checks or cache layout change. /2: bundles are confined to
 * the pack's dependency closure, with no import attributes or non-JS loaders; a cache entry made
 * by /1 (which only fenced the install root) must never be served again. /3: subpaths of a
 * dependency; `require` in a bundle is judged by the scope-aware scan and the probe (a /2 entry
 * holds the old blanket js-require skip); `Function("return this")` and Intl are judged anew, and
 * probe failures carry sentences naming the cause. /4: `process.env.NODE_ENV` is defined as
 * "production", as browser bundlers do (immer and many others read it when imported); a Node
 * builtin reached only by `require()` is left to the probe (seedrandom's guarded require).
 */
export const COMPILER_VERSION = 'sandbox-packs-npm-compiler/4';

export const RESOLVE_CONDITIONS = ['browser', 'import', 'module', 'default'] as const;
export const MAIN_FIELDS = ['browser', 'module', 'main'] as const;

/** Build options that shape the output; passed to esbuild as-is and hashed into the id. */
export const BUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  conditions: [...RESOLVE_CONDITIONS],
  mainFields: [...MAIN_FIELDS],
  resolveExtensions: ['.mjs', '.js', '.cjs', '.json'],
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  treeShaking: true,
  external: [] as string[],
  // A constant, as every browser bundler defines it: code reading it is compiled as production
  // code, and no `process` is reached (the guest has none).
  define: { 'process.env.NODE_ENV': '"production"' },
} as const;

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const NORMALIZED_OPTIONS = stableJson(BUILD_OPTIONS);

export const ESBUILD_VERSION = esbuildVersion;

/** Identifies the compiler, the esbuild version and the options; part of every graph digest. */
export const COMPILER_ID = `${COMPILER_VERSION};esbuild@${ESBUILD_VERSION};options=${createHash('sha256').update(NORMALIZED_OPTIONS).digest('hex').slice(0, 16)}`;
