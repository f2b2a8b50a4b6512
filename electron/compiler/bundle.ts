// One esbuild run over a generated entry, confined to the install root. A plugin sees every
// import before esbuild resolves it: Node builtins are refused by name (that is the filter that
// turns "js-yaml imports node:fs" into a named skip), and every other import is resolved by
// esbuild itself and then checked by its real path, so no import — relative, bare, or through a
// symbolic link — can pull a file from outside the root (such as the app's own node_modules).

import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { fail, ok, type Result } from '../../shared/protocol/index.ts';
import { BUILD_OPTIONS } from './build-options.ts';
import { isInside } from './package-locator.ts';

/** The esbuild entry points the compiler needs; injectable so tests can count real builds. */
export interface EsbuildPort {
  build(options: esbuild.BuildOptions & { write: false; metafile: true }): Promise<esbuild.BuildResult<{ write: false; metafile: true }>>;
  readonly version: string;
}

export interface BundleOutput {
  readonly code: string;
  readonly metafile: esbuild.Metafile;
}

export type BundleCode = 'npm-bundle-failed' | 'npm-node-builtin';

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, name.split('/')[0] ?? name]));
const INNER = Symbol('inner-resolve');

export function isNodeBuiltin(request: string): boolean {
  if (request.startsWith('node:')) return true;
  return BUILTINS.has(request) || BUILTINS.has(request.split('/')[0] ?? request);
}

function confinementPlugin(rootReal: string, builtinHits: string[], escapes: string[]): esbuild.Plugin {
  return {
    name: 'sandbox-confinement',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === INNER) return undefined;
        if (isNodeBuiltin(args.path)) {
          const from = args.importer ? path.relative(rootReal, args.importer) : 'the entry';
          builtinHits.push(`${args.path} (imported by ${from})`);
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
        if (resolved.namespace !== 'file') return { path: resolved.path, namespace: resolved.namespace, sideEffects: resolved.sideEffects };
        let real: string;
        try {
          real = fs.realpathSync(resolved.path);
        } catch {
          return { errors: [{ text: `"${args.path}" resolved to a file that cannot be read` }] };
        }
        if (!isInside(rootReal, real)) {
          escapes.push(args.path);
          return { errors: [{ text: `"${args.path}" resolves outside the install root` }] };
        }
        return { path: real, sideEffects: resolved.sideEffects };
      });
    },
  };
}

/** Bundle `entrySource` (resolved from `resolveDir`) with the pinned options. */
export async function bundleEntry(
  port: EsbuildPort,
  rootReal: string,
  resolveDir: string,
  entrySource: string,
  npmName: string,
): Promise<Result<BundleOutput, BundleCode>> {
  const builtinHits: string[] = [];
  const escapes: string[] = [];
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
      plugins: [confinementPlugin(rootReal, builtinHits, escapes)],
    });
  } catch (error) {
    if (builtinHits.length > 0) {
      return fail('npm-node-builtin', `${npmName} imports ${[...new Set(builtinHits)].slice(0, 3).join(', ')}; the sandbox has no Node APIs.`);
    }
    if (escapes.length > 0) {
      return fail('npm-bundle-failed', `${npmName} imports ${escapes[0]}, which resolves outside the install root.`);
    }
    const errors = (error as { errors?: esbuild.Message[] }).errors;
    const first = errors?.[0];
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    const text = first ? `${first.text}${where}` : String(error);
    return fail('npm-bundle-failed', `${npmName} could not be bundled: ${text}.`);
  }
  const out = result.outputFiles[0];
  if (!out) return fail('npm-bundle-failed', `${npmName} could not be bundled: esbuild produced no output.`);
  return ok({ code: out.text, metafile: result.metafile });
}
