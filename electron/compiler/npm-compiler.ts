// The npm compiler: turns the npm package a config-only pack names into one guest module, and
// decides whether it may be admitted (the steps are listed on createNpmCompiler). It implements
// the catalog's `NpmModuleCompiler` port.
//
// Invariants: a bundle reads only the pack's dependency closure (dependency-closure.ts); the result
// is cached by content, so a warm discovery neither bundles nor probes; and compile() is total:
// whatever a pack ships, it answers with a tagged result (an unexpected throw becomes
// `npm-bundle-failed` with its reason), so one bad pack skips one module and never stops discovery.

import { realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { analyzeJs } from '../../shared/packs/js-analysis.ts';
import { staticVerdict } from '../../shared/packs/pack-graph.ts';
import { fail, formatBytes, LIMITS, ok, parseNpmField, type ErrorCode, type NpmTarget, type PackWarning, type Result } from '../../shared/protocol/index.ts';
import { COMPILER_ID, COMPILER_VERSION, ESBUILD_VERSION, NORMALIZED_OPTIONS } from './build-options.ts';
import { bundleEntry, type EsbuildPort } from './bundle.ts';
import { entryShape, generatedEntry, resolutionEntry } from './cjs-exports.ts';
import { dependencyClosure, type DependencyClosure } from './dependency-closure.ts';
import { CompileCache, contentKey, existing, hashInputs, sha256Hex, VerdictSchema, type CacheEntry } from './compile-cache.ts';
import { hardUseReason, probeFailureReason, softUseWarning } from './admission-reasons.ts';
import { scanForbiddenGlobals, type GlobalHit } from './global-scan.ts';
import type { NpmCompileRequest, NpmCompileResult, NpmModuleCompiler } from '../catalog/npm-compiler-port.ts';
import { checkSubpath } from './package-exports.ts';
import { isInside, locatePackage } from './package-locator.ts';
import { createProbe, type ProbeFn } from './probe.ts';
import { resolutionGuard } from './resolution-guard.ts';

export type { NpmCompileRequest, NpmCompileResult, NpmModuleCompiler };

export interface NpmCompilerOptions {
  /** The install root; nothing outside it is ever bundled. */
  readonly root: string;
  /** Defaults to the real esbuild; tests wrap it to count bundle runs. */
  readonly esbuild?: EsbuildPort;
  /** Defaults to the quickjs-ng worker probe. */
  readonly probe?: ProbeFn;
}

export interface NpmCompilerStats {
  readonly bundles: number;
  readonly cacheHits: number;
  readonly probes: number;
}

export interface NpmCompiler extends NpmModuleCompiler {
  /** Counts since creation: esbuild runs, cache hits, probes. How tests prove a warm start does not bundle. */
  stats(): NpmCompilerStats;
}

/** esbuild names the generated entry `<resolveDir relative to the root>/<sandbox-entry>`. */
const isEntryInput = (file: string): boolean => file === '<sandbox-entry>' || file.endsWith('/<sandbox-entry>');

/** True when `real` (a real path) is a file of the package at `packageDir` itself, not of a package nested in it. */
function ownFile(packageDir: string, file: string): boolean {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return false;
  }
  return isInside(packageDir, real) && real !== packageDir && !path.relative(packageDir, real).split(path.sep).includes('node_modules');
}

const realEsbuild: EsbuildPort = { build: (options) => esbuild.build(options), version: esbuild.version };

async function lockfileHash(rootReal: string): Promise<string> {
  try {
    return sha256Hex(await fs.readFile(path.join(rootReal, 'package-lock.json')));
  } catch {
    return sha256Hex('no package-lock.json');
  }
}

function globalWarnings(npmName: string, hits: readonly GlobalHit[]): PackWarning[] {
  const warnings: PackWarning[] = [];
  for (const name of [...new Set(hits.map((hit) => hit.name))].sort()) {
    const guarded = hits.filter((hit) => hit.name === name && hit.kind === 'guarded').length;
    const deferred = hits.filter((hit) => hit.name === name && hit.kind === 'deferred').length;
    const hard = hits.find((hit) => hit.name === name && hit.kind === 'hard');
    const message =
      guarded + deferred > 0
        ? softUseWarning(npmName, name, guarded, deferred)
        : `${hardUseReason(npmName, hard!).replace(/\.$/, '')}; yet importing it in the sandbox worked, so that code is not reached on import (a call that reaches it throws).`;
    warnings.push({ code: 'npm-forbidden-global', message });
  }
  return warnings;
}

/**
 * The steps, in order: split the `npm` field into a package and an optional subpath
 * (parseNpmField); find the package inside the install root and check that it belongs to the
 * pack's dependency closure (dependency-closure.ts: the only directories a bundle may read); for a
 * subpath, check that the package publishes it (package-exports.ts); a first esbuild pass to
 * resolve it and learn its files and format (a subpath's file must be the package's own, by real
 * path); the real entry (keeping a CommonJS package's default and named exports); the real bundle;
 * the 1 MB cap; the authored-module static rules; the scope-aware forbidden-global scan; the
 * QuickJS admission probe. The cached result carries the static checks' verdict, so discovery does
 * not parse the bundle again either (pack-graph.ts reuses it only for the same bytes and
 * analyzer). A miss starts the probe worker before bundling.
 */
export function createNpmCompiler(options: NpmCompilerOptions): NpmCompiler {
  const port = options.esbuild ?? realEsbuild;
  const probe = options.probe ?? createProbe();
  const counts = { bundles: 0, cacheHits: 0, probes: 0 };
  const countingPort: EsbuildPort = {
    version: port.version,
    build: (buildOptions) => {
      counts.bundles++;
      return port.build(buildOptions);
    },
  };
  const keyExtra = [COMPILER_VERSION, `esbuild@${port.version}`, NORMALIZED_OPTIONS];
  let rootRealPromise: Promise<string> | undefined;

  async function compileUncached(
    rootReal: string,
    closure: DependencyClosure,
    req: NpmCompileRequest,
    located: { readonly resolveDir: string; readonly packageDir: string; readonly target: NpmTarget },
  ): Promise<{ entry?: Omit<CacheEntry, 'format' | 'compilerId'>; result: Result<NpmCompileResult, ErrorCode> }> {
    const { npmName } = req;
    const { resolveDir } = located;
    const first = await bundleEntry(countingPort, rootReal, closure, resolveDir, resolutionEntry(npmName), npmName);
    if (!first.ok) return { result: first };
    const entryFile = Object.entries(first.value.metafile.inputs)
      .find(([file]) => isEntryInput(file))?.[1]
      .imports.find((imp) => imp.original === npmName)?.path;
    if (entryFile === undefined) return { result: fail('npm-bundle-failed', `${npmName} could not be bundled: esbuild did not report its entry file.`) };
    if (located.target.subpath !== undefined && !ownFile(located.packageDir, path.resolve(rootReal, entryFile))) {
      return {
        result: fail(
          'npm-bundle-failed',
          `${npmName} resolves to ${entryFile}, outside the ${located.target.packageName} package; a subpath must name a file of the package itself.`,
        ),
      };
    }
    const shape = await entryShape(rootReal, first.value.metafile, entryFile, npmName);
    if (!shape.ok) return { result: shape };
    const entrySource = generatedEntry(npmName, shape.value);
    const second = await bundleEntry(countingPort, rootReal, closure, resolveDir, entrySource, npmName);
    if (!second.ok) return { result: second };
    const guard = resolutionGuard(second.value.metafile);
    const sourceFiles = Object.keys(second.value.metafile.inputs).filter((file) => !isEntryInput(file));
    const inputPaths = [...new Set([...sourceFiles, ...(await existing(rootReal, guard.manifests))])];
    const inputs = await hashInputs(rootReal, inputPaths);
    if (inputs === undefined)
      return { result: fail('npm-bundle-failed', `${npmName} could not be bundled: an input file changed or left the install root while bundling.`) };
    const key = contentKey(inputs, keyExtra);
    const inputsDigest = contentKey(inputs, [...keyExtra, entrySource]);
    const { result, transient } = await admit(req, second.value.code, inputsDigest, second.value.requiredBuiltins);
    if (transient) return { result };
    const outcome = result.ok
      ? {
          ok: true as const,
          source: result.value.source,
          inputsDigest,
          warnings: result.value.warnings,
          ...(result.value.analysis ? { analysis: { ...result.value.analysis, exportNames: [...result.value.analysis.exportNames] } } : {}),
        }
      : { ok: false as const, code: result.code, message: result.message };
    const lockfile = guard.replayable ? undefined : await lockfileHash(rootReal);
    return { entry: { key, inputs, absent: guard.absent, ...(lockfile !== undefined ? { lockfile } : {}), outcome }, result };
  }

  /** The checks after bundling. `transient` marks an outcome that must not be cached (a probe deadline or crash). */
  async function admit(
    req: NpmCompileRequest,
    source: string,
    inputsDigest: string,
    requiredBuiltins: readonly string[] = [],
  ): Promise<{ result: Result<NpmCompileResult, ErrorCode>; transient?: boolean }> {
    const result = await admitChecks(req, source, inputsDigest, requiredBuiltins);
    return 'transient' in result ? { result: result.failure, transient: true } : { result };
  }

  async function admitChecks(
    req: NpmCompileRequest,
    source: string,
    inputsDigest: string,
    requiredBuiltins: readonly string[],
  ): Promise<Result<NpmCompileResult, ErrorCode> | { transient: true; failure: Result<NpmCompileResult, ErrorCode> }> {
    const { npmName } = req;
    const size = Buffer.byteLength(source, 'utf8');
    if (size > LIMITS.bundledJsBytes) {
      return fail(
        'npm-too-large',
        `${npmName} bundles to ${formatBytes(size)} minified, over the ${formatBytes(LIMITS.bundledJsBytes)} limit for an npm module.`,
      );
    }
    const analysis = analyzeJs(source, {
      packName: req.packName,
      publicSpecifiers: new Set([req.specifier]),
      internalPaths: new Set(),
      displayName: `${npmName} (bundled)`,
      npmBundle: true,
    });
    if (!analysis.ok) return analysis;
    const scan = scanForbiddenGlobals(source);
    if (!scan.ok) return fail('npm-bundle-failed', `${npmName} bundled to code that does not parse: ${scan.message}.`);
    // A use the scan places at import time is judged by the probe too (the design: bundling proves
    // resolution, the probe proves initialisation): the scan cannot see that a value is never
    // reached (immer's `process.env` behind a constant it set itself). Refused by the probe, the
    // module is refused with the scan's sentence, which names the global; admitted, it is a warning.
    const hard = scan.hits.find((hit) => hit.kind === 'hard');
    const builtins = requiredBuiltins.slice(0, 3).join(', ');
    const warnings = [
      ...globalWarnings(npmName, scan.hits),
      ...(requiredBuiltins.length > 0
        ? [
            {
              code: 'npm-node-builtin' as const,
              message: `${npmName} requires ${builtins} behind a check (importing it in the sandbox worked); the sandbox has no Node APIs, so such a require throws and the code takes its other path.`,
            },
          ]
        : []),
    ];
    counts.probes++;
    const probed = await probe(source, `${req.specifier} (npm ${npmName})`);
    if (!probed.ok) {
      // esbuild's require shim says "Dynamic require of "x" is not supported".
      if (requiredBuiltins.length > 0 && !probed.transient && probed.message.includes('Dynamic require of'))
        return fail('npm-node-builtin', `${npmName} requires ${builtins} when it is imported; the sandbox has no Node APIs.`);
      if (hard && !probed.transient && probed.message.includes(hard.name)) return fail('npm-forbidden-global', hardUseReason(npmName, hard));
      const failure = fail('npm-probe-failed', probeFailureReason(npmName, probed.message));
      return probed.transient ? { transient: true, failure } : failure;
    }
    // The verdict rides along so discovery need not parse the bundle again (pack-graph.ts checks it still fits the bytes).
    // One that the cache could not read back (absurdly many or long export names) is left out, or every start would miss.
    const verdict = staticVerdict(source, analysis.value, sha256Hex);
    const keep = verdict !== undefined && VerdictSchema.safeParse(verdict).success;
    return ok({ source, compilerId: COMPILER_ID, inputsDigest, warnings, ...(keep ? { analysis: verdict } : {}) });
  }

  async function compile(req: NpmCompileRequest): Promise<Result<NpmCompileResult, ErrorCode>> {
    rootRealPromise ??= fs.realpath(options.root);
    let rootReal: string;
    try {
      rootReal = await rootRealPromise;
    } catch {
      rootRealPromise = undefined;
      return fail('root-unreadable', `The install root ${options.root} could not be read.`);
    }
    const field = parseNpmField(req.npmName);
    if (!field.ok) return fail('npm-bundle-failed', field.message);
    const target = field.value;
    const located = await locatePackage(rootReal, req.packDir, target.packageName);
    if (!located.ok) return located;
    const { packReal } = located.value;
    const closure = await dependencyClosure(rootReal, packReal, req.npmName);
    if (!closure.ok) return closure;
    if (!closure.value.dirs.has(located.value.dir)) {
      const rule = `the "npm" field must name the pack itself or a package in its package.json dependencies`;
      return fail(
        'npm-bundle-failed',
        target.subpath === undefined
          ? `${req.npmName} is not among the dependencies of ${req.packName}; ${rule}.`
          : `${req.npmName} is a subpath of ${target.packageName}, which is not among the dependencies of ${req.packName}; ${rule} (optionally with a subpath it exports).`,
      );
    }
    if (target.subpath !== undefined) {
      const route = await checkSubpath(located.value.dir, req.npmName, { packageName: target.packageName, subpath: target.subpath });
      if (!route.ok) return route;
    }
    // The closure is part of the name: an entry made for another set of allowed packages (the
    // pack's dependencies changed, a link appeared) is never even looked at.
    const lookup = sha256Hex(
      [
        COMPILER_ID,
        `esbuild@${port.version}`,
        path.relative(rootReal, packReal),
        req.npmName,
        req.specifier,
        path.relative(rootReal, located.value.dir),
        `closure=${closure.value.relDirs.join('|')}`,
      ].join('\0'),
    );
    const cache = new CompileCache(rootReal);
    const hit = await cache.read(lookup, keyExtra, () => lockfileHash(rootReal));
    if (hit) {
      counts.cacheHits++;
      const o = hit.outcome;
      return o.ok
        ? ok({
            source: o.source,
            compilerId: hit.compilerId,
            inputsDigest: o.inputsDigest,
            warnings: [...o.warnings],
            ...(o.analysis ? { analysis: o.analysis } : {}),
          })
        : fail(o.code, o.message);
    }
    // A miss ends in the admission probe; booting its worker now overlaps that boot with esbuild.
    probe.warm?.();
    const { entry, result } = await compileUncached(rootReal, closure.value, req, { resolveDir: packReal, packageDir: located.value.dir, target });
    if (entry) {
      try {
        await cache.write(lookup, { format: COMPILER_VERSION, compilerId: COMPILER_ID, ...entry });
      } catch {
        // A cache that cannot be written (full disk, read-only root) costs the next start a
        // rebuild; the compile itself is still good.
      }
    }
    return result;
  }

  return {
    stats: () => ({ ...counts }),
    async compile(req) {
      try {
        return await compile(req);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return fail('npm-bundle-failed', `${req.npmName} could not be compiled: ${why}.`);
      }
    },
  };
}

export { COMPILER_ID, ESBUILD_VERSION };
