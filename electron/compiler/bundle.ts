// One esbuild run over a generated entry, confined to the pack's dependency closure (computed in
// dependency-closure.ts). The install root is the app's data directory (saved workflows, the npm
// userconfig, the ledger, npm's cache), so the root is not the fence; the closure is. The
// closure's member list is part of the compile cache's lookup name (npm-compiler.ts).
//
// Invariant: every file esbuild reads is judged by its real path — it must be a file of a closure
// member and a .js, .mjs, .cjs or .json file — when it is resolved, when it is loaded, and again
// over the metafile after the build, so nothing read unchecked can reach the output
// (confinementPlugin says why it takes both gates).

import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { fail, ok, type Result } from '../../shared/protocol/index.ts';
import { BUILD_OPTIONS } from './build-options.ts';
import type { DependencyClosure } from './dependency-closure.ts';
import { isInside } from './package-locator.ts';

/** The esbuild entry points the compiler needs; injectable so tests can count real builds. */
export interface EsbuildPort {
  build(options: esbuild.BuildOptions & { write: false; metafile: true }): Promise<esbuild.BuildResult<{ write: false; metafile: true }>>;
  readonly version: string;
}

export interface BundleOutput {
  readonly code: string;
  readonly metafile: esbuild.Metafile;
  /** Node builtins the bundle `require()`s (left to the probe; see the plugin). */
  readonly requiredBuiltins: readonly string[];
}

export type BundleCode = 'npm-bundle-failed' | 'npm-node-builtin';

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, name.split('/')[0] ?? name]));
const INNER = Symbol('inner-resolve');

export function isNodeBuiltin(request: string): boolean {
  if (request.startsWith('node:')) return true;
  return BUILTINS.has(request) || BUILTINS.has(request.split('/')[0] ?? request);
}

/** The extensions a bundle may contain; esbuild's default loader for each is js or json. */
const BUNDLED_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.json']);

function loaderProblem(file: string): string | undefined {
  const ext = path.extname(file);
  if (BUNDLED_EXTENSIONS.has(ext)) return undefined;
  return `${ext === '' ? 'a file without an extension' : `a ${ext} file`}; only .js, .mjs, .cjs and .json files are bundled`;
}

function attributesText(attributes: Record<string, string>): string {
  return Object.entries(attributes)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join(', ');
}

interface Findings {
  readonly builtinHits: string[];
  /** Builtins reached by a `require()` call: left to the bundle's require shim (it throws), and to the probe. */
  readonly requiredBuiltins: string[];
  /** Refusals in the order they were met; the first becomes the message. */
  readonly refusals: string[];
}

/** The fence applied to one file read: undefined when `real` may be bundled, else the reason. */
function fileProblem(rootReal: string, closure: DependencyClosure, real: string): 'outside-root' | 'outside-closure' | undefined {
  if (!isInside(rootReal, real)) return 'outside-root';
  return closure.allows(real) ? undefined : 'outside-closure';
}

const rootRelative = (rootReal: string, real: string): string => path.relative(rootReal, real).split(path.sep).join('/');

/**
 * The fence, as two gates, because esbuild reads files along two paths:
 * - onResolve sees every import before esbuild resolves it. Import attributes (`with { type }`)
 *   are refused: they select loaders (text, bytes, json) that turn any file into a string; the
 *   old `assert { }` form is dropped by esbuild and selects nothing. Node builtins are refused by
 *   name. Everything else is resolved by esbuild itself and then judged by its real path: it must
 *   be a file (no data: URLs or other virtual modules), a file of a closure member, and a .js,
 *   .mjs, .cjs or .json file (a JSON file of the pack or a dependency stays allowed: packages ship
 *   tables that way). So relative, absolute, bare, `browser`-remapped, `exports`-mapped and
 *   symlinked imports all meet the same check.
 * - onLoad sees every file esbuild is about to read, including the ones a glob-style import
 *   (import() of a template string `./dir/${x}.json`, or require("./dir/" + x)) expands to
 *   without asking any resolve plugin. The same real-path and extension checks run there, and
 *   again over the metafile after the build (bundleEntry).
 */
function confinementPlugin(rootReal: string, closure: DependencyClosure, npmName: string, found: Findings): esbuild.Plugin {
  const refuse = (message: string): { errors: esbuild.PartialMessage[] } => {
    found.refusals.push(message);
    return { errors: [{ text: message }] };
  };
  return {
    name: 'sandbox-confinement',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === INNER) return undefined;
        const attributes = args.with ?? {};
        if (Object.keys(attributes).length > 0) {
          return refuse(`${npmName} imports ${args.path} with import attributes (${attributesText(attributes)}); bundled code may not use import attributes.`);
        }
        if (isNodeBuiltin(args.path)) {
          const from = args.importer ? path.relative(rootReal, args.importer) : 'the entry';
          // `require("crypto")` inside a try or behind a check (seedrandom, many UMD builds): the
          // call stays in the bundle as esbuild's shim, which throws in the guest (it has no
          // require), so the code takes its other path; one that needs it on import fails the probe.
          if (args.kind === 'require-call') {
            found.requiredBuiltins.push(`${args.path} (required by ${from})`);
            return { path: args.path, external: true };
          }
          found.builtinHits.push(`${args.path} (imported by ${from})`);
          return { errors: [{ text: `Node builtin "${args.path}" is not available in the sandbox` }] };
        }
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: INNER,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external) return { errors: [{ text: `"${args.path}" would stay external; sandbox bundles have no externals` }] };
        if (resolved.namespace !== 'file') {
          return refuse(`${npmName} imports ${args.path}, which is not a file; data: URLs and other virtual modules are not bundled.`);
        }
        let real: string;
        try {
          real = fs.realpathSync(resolved.path);
        } catch {
          return { errors: [{ text: `"${args.path}" resolved to a file that cannot be read` }] };
        }
        const problem = fileProblem(rootReal, closure, real);
        if (problem === 'outside-root') return refuse(`${npmName} imports ${args.path}, which resolves outside the install root.`);
        if (problem === 'outside-closure') return refuse(`${npmName} imports ${args.path}, which is not a file of the pack or of a package it depends on.`);
        const loader = loaderProblem(real);
        if (loader !== undefined) return refuse(`${npmName} imports ${args.path}, ${loader}.`);
        return { path: real, sideEffects: resolved.sideEffects };
      });
      // Glob-style imports reach here without passing onResolve; so does everything else.
      build.onLoad({ filter: /.*/ }, (args) => {
        if (args.namespace !== 'file') return refuse(`${npmName} would bundle a module that is not a file (${args.namespace}); only files are bundled.`);
        if (Object.keys(args.with ?? {}).length > 0) {
          const shown = isInside(rootReal, args.path) ? rootRelative(rootReal, args.path) : 'a file outside the install root';
          return refuse(`${npmName} would bundle ${shown} with import attributes (${attributesText(args.with)}); bundled code may not use import attributes.`);
        }
        const problem = loadProblem(rootReal, closure, npmName, args.path);
        return problem === undefined ? undefined : refuse(problem);
      });
    },
  };
}

/** The onLoad and metafile check of one file esbuild reads: undefined when it may be bundled. */
function loadProblem(rootReal: string, closure: DependencyClosure, npmName: string, file: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return `${npmName} would bundle a file that cannot be read.`;
  }
  const problem = fileProblem(rootReal, closure, real);
  if (problem === 'outside-root') return `${npmName} would bundle a file outside the install root.`;
  if (problem === 'outside-closure')
    return `${npmName} would bundle ${rootRelative(rootReal, real)}, which is not a file of the pack or of a package it depends on.`;
  const loader = loaderProblem(real);
  return loader === undefined ? undefined : `${npmName} would bundle ${rootRelative(rootReal, real)}, ${loader}.`;
}

/**
 * Bundle `entrySource` (resolved from `resolveDir`) with the pinned options, inside `closure`.
 * tsconfig.json/jsconfig.json files are ignored (tsconfigRaw is given), and `new URL(...,
 * import.meta.url)` is left as an expression: esbuild reads no file for it.
 */
export async function bundleEntry(
  port: EsbuildPort,
  rootReal: string,
  closure: DependencyClosure,
  resolveDir: string,
  entrySource: string,
  npmName: string,
): Promise<Result<BundleOutput, BundleCode>> {
  const found: Findings = { builtinHits: [], requiredBuiltins: [], refusals: [] };
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await port.build({
      ...BUILD_OPTIONS,
      conditions: [...BUILD_OPTIONS.conditions],
      mainFields: [...BUILD_OPTIONS.mainFields],
      resolveExtensions: [...BUILD_OPTIONS.resolveExtensions],
      external: [],
      stdin: { contents: entrySource, resolveDir, sourcefile: '<sandbox-entry>', loader: 'js' },
      absWorkingDir: rootReal,
      nodePaths: [],
      tsconfigRaw: {},
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [confinementPlugin(rootReal, closure, npmName, found)],
    });
  } catch (error) {
    if (found.builtinHits.length > 0) {
      return fail('npm-node-builtin', `${npmName} imports ${[...new Set(found.builtinHits)].slice(0, 3).join(', ')}; the sandbox has no Node APIs.`);
    }
    const refusal = found.refusals[0];
    if (refusal !== undefined) return fail('npm-bundle-failed', refusal);
    const errors = (error as { errors?: esbuild.Message[] }).errors;
    const first = errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    const text = first ? `${first.text}${where}` : String(error);
    return fail('npm-bundle-failed', `${npmName} could not be bundled: ${text}.`);
  }
  // The gates above saw every read; this re-checks what the output was actually built from.
  for (const input of Object.keys(result.metafile.inputs)) {
    if (input === '<sandbox-entry>' || input.endsWith('/<sandbox-entry>')) continue;
    const problem = loadProblem(rootReal, closure, npmName, path.resolve(rootReal, input));
    if (problem !== undefined) return fail('npm-bundle-failed', problem);
  }
  const out = result.outputFiles[0];
  if (!out) return fail('npm-bundle-failed', `${npmName} could not be bundled: esbuild produced no output.`);
  return ok({ code: out.text, metafile: result.metafile, requiredBuiltins: [...new Set(found.requiredBuiltins)] });
}
