// What the configured registry says about an installed pack, read from its packument (the
// registry's JSON metadata: dist-tags, versions with their package.json, publish times) with one
// HTTP GET, read within a byte cap and a deadline. Nothing is installed and nothing runs, so the
// scripts-off rule holds trivially. The bundled index only knows our own packs at the versions it
// was written for; this is how the Updates tab sees a newer version on whatever registry the user
// configured.

import { z } from 'zod';
import { manifestSpecifier } from '../../shared/packs/specifier.ts';
import { NodetoolManifestSchema, PackageVersionSchema } from '../../shared/protocol/manifest.ts';
import { formatBytes } from '../../shared/protocol/limits.ts';
import { parseWith } from '../../shared/protocol/parse.ts';
import { fail, type Result } from '../../shared/protocol/result.ts';
import { bodyText, failurePhrase, fetchCapped } from './registry-fetch.ts';

const PackumentSchema = z.looseObject({
  'dist-tags': z.record(z.string(), PackageVersionSchema),
  time: z.record(z.string(), z.string()).optional(),
  versions: z.record(z.string(), z.looseObject({ version: PackageVersionSchema, nodetool: z.unknown().optional() })),
});
export type Packument = z.infer<typeof PackumentSchema>;

/** npm's URL form for a name: the scope's slash is encoded, the leading @ is not. */
export function packumentUrl(registry: string, name: string): string {
  return `${registry.replace(/\/?$/, '/')}${name.replace('/', '%2f')}`;
}

/**
 * A packument holds every version's package.json; a pack with a few hundred versions is well
 * under 1 MB. The cap bounds what a registry can make us buffer and parse (read as a stream,
 * registry-fetch.ts).
 */
export const PACKUMENT_MAX_BYTES = 16 * 1024 * 1024;

export async function fetchPackument(registry: string, name: string, timeoutMs = 15_000, maxBytes = PACKUMENT_MAX_BYTES): Promise<Result<Packument>> {
  const url = packumentUrl(registry, name);
  // Redirects are followed as fetch always did here (a registry may sit behind a redirecting proxy).
  const got = await fetchCapped(url, { maxBytes, timeoutMs, headers: { accept: 'application/json' }, redirect: 'follow' });
  if (!got.ok) {
    if (got.kind === 'status' && got.status === 404) return fail('not-found', `${name} does not exist on the registry ${registry}.`);
    if (got.kind === 'status') return fail('registry-unreachable', `The registry ${registry} answered HTTP ${got.status} for ${name}.`);
    if (got.kind === 'too-large') {
      return fail(
        'invalid-data',
        `The registry ${registry} answered for ${name} with more than the ${formatBytes(got.maxBytes)} a package's metadata may be; it was not read.`,
      );
    }
    return fail('registry-unreachable', `The registry ${registry} could not be reached for ${name}: ${failurePhrase(got)}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(bodyText(got.bytes));
  } catch {
    return fail('invalid-data', `The registry ${registry} answered for ${name} with something that is not JSON.`);
  }
  return parseWith(PackumentSchema, json, `${name} metadata from ${registry}`);
}

/** Numeric semver order, enough for "is the registry's latest newer": a prerelease sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.split('+')[0]!.split(/-(.*)/s);
    return { nums: core.split('.').map((x) => Number.parseInt(x, 10) || 0), pre };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

export interface ManifestSurface {
  /** Import specifiers the manifest declares. */
  readonly specifiers: ReadonlySet<string>;
  /** WASM exports per specifier, by the name code imports. */
  readonly wasmExports: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The import surface a manifest declares: what a Code node could import from it. */
export function manifestSurface(packName: string, nodetool: unknown): ManifestSurface {
  const parsed = NodetoolManifestSchema.safeParse(nodetool);
  const specifiers = new Set<string>();
  const wasmExports = new Map<string, Set<string>>();
  if (!parsed.success) return { specifiers, wasmExports };
  for (const entry of parsed.data.sandboxModules ?? []) {
    // An entry whose name discovery would skip was never importable, so it cannot be removed by an update.
    const specifier = manifestSpecifier(packName, entry.name);
    if (specifier === undefined) continue;
    specifiers.add(specifier);
    if (entry.kind === 'wasm') wasmExports.set(specifier, new Set(entry.exports.map((e) => (typeof e === 'string' ? e : e.as))));
  }
  return { specifiers, wasmExports };
}

/** What the newer manifest no longer declares: whole modules, and WASM exports of modules it keeps. */
export function removedSurface(
  before: ManifestSurface,
  after: ManifestSurface,
): { removedModules: string[]; removedExports: { specifier: string; names: string[] }[] } {
  const removedModules = [...before.specifiers].filter((s) => !after.specifiers.has(s)).sort();
  const removedExports: { specifier: string; names: string[] }[] = [];
  for (const [specifier, names] of before.wasmExports) {
    const kept = after.wasmExports.get(specifier);
    if (!kept) continue;
    const gone = [...names].filter((n) => !kept.has(n)).sort();
    if (gone.length > 0) removedExports.push({ specifier, names: gone });
  }
  return { removedModules, removedExports };
}
