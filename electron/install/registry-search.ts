// Finding packs: the registry index `search` reads — the bundled default (registry/index.json,
// listing our own packs) or one given as a file path or an https URL — and the configured
// registry's npm search, merged (below). Whatever the source, JSON is parsed from `unknown`, and
// every answer from a server is read within a byte cap and a deadline (registry-fetch.ts).

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { PackSearchHit, PackSearchResult } from '../../shared/contract/search-schemas.ts';
import { disclosureLine } from '../../shared/packs/disclosure.ts';
import { manifestSpecifier } from '../../shared/packs/specifier.ts';
import { NodetoolManifestSchema, PackageNameSchema, PackageVersionSchema } from '../../shared/protocol/manifest.ts';
import { RegistryIndexSchema, searchIndex, type RegistryIndex } from '../../shared/protocol/registry-index.ts';
import { formatBytes } from '../../shared/protocol/limits.ts';
import { parseWith } from '../../shared/protocol/parse.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { assetPath } from '../platform/assets.ts';
import { bodyText, failurePhrase, fetchCapped, type CappedFailure } from './registry-fetch.ts';

export const BUNDLED_INDEX = assetPath('registry-index');
/** A remote index lists packs, not their code: ours is 3 KB. */
const INDEX_MAX_BYTES = 5 * 1024 * 1024;
const INDEX_TIMEOUT_MS = 15_000;

export async function loadRegistryIndex(source: string = BUNDLED_INDEX, cwd: string = process.cwd()): Promise<Result<RegistryIndex>> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    if (!/^https:\/\//i.test(source) && !/^http:\/\/(?:127\.0\.0\.1|localhost)[:/]/i.test(source)) {
      return fail('usage', 'A registry index URL must use https.');
    }
    const got = await fetchCapped(source, { maxBytes: INDEX_MAX_BYTES, timeoutMs: INDEX_TIMEOUT_MS, redirect: 'follow' });
    if (!got.ok) {
      if (got.kind === 'status') return fail('registry-unreachable', `The registry index ${source} answered HTTP ${got.status}.`);
      if (got.kind === 'too-large') {
        return fail(
          'invalid-data',
          `The registry index ${source} is larger than the ${formatBytes(got.maxBytes)} an index may be; check the URL, or use the bundled index.`,
        );
      }
      return fail('registry-unreachable', `The registry index ${source} could not be fetched (${failurePhrase(got)}); check the URL and your connection.`);
    }
    text = bodyText(got.bytes);
  } else {
    const file = path.resolve(cwd, source);
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return fail('root-unreadable', `The registry index ${file} could not be read: ${(error as Error).message}`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('invalid-data', `${source}: not valid JSON`);
  }
  return parseWith(RegistryIndexSchema, json, source);
}

// --- the registry's npm search, merged with the index ----------------------------------------------
//
// Packs are found on a registry the way npm and n8n find them: its `/-/v1/search` endpoint, for the
// `sandbox-pack` keyword. Verdaccio ignores npm's `keywords:` qualifier (it matches the text in
// names and descriptions only), so when the qualified query finds nothing we list the registry's
// packages and keep those carrying the keyword; the keyword filter is ours either way. The module
// summaries come from each hit's published manifest (`/<name>/<version>`), squeezed through the
// disclosure-tier rules; they are only shown, never used to decide anything: the installer reads
// the installed artifact. Every response is parsed from unknown; a registry that cannot be reached
// or has no search leaves the bundled index alone, with a note saying so.

/** The keyword that marks a published pack. */
export const PACK_KEYWORD = 'sandbox-pack';
/** Published manifests fetched per search (for module summaries). */
const MANIFESTS_PER_SEARCH = 25;

/** Bounds on what one registry search may cost; tests shorten them. */
export interface RegistrySearchLimits {
  readonly searchTimeoutMs: number;
  /** A search answer: 250 objects of a few KB each fit many times over. */
  readonly searchMaxBytes: number;
  readonly manifestTimeoutMs: number;
  /** One published version's manifest: the package.json (capped at 1 MB on disk too) plus the registry's fields. */
  readonly manifestMaxBytes: number;
}

export const DEFAULT_SEARCH_LIMITS: RegistrySearchLimits = {
  searchTimeoutMs: 5_000,
  searchMaxBytes: 5 * 1024 * 1024,
  manifestTimeoutMs: 3_000,
  manifestMaxBytes: 1024 * 1024,
};

const SearchResponseSchema = z.looseObject({ objects: z.array(z.unknown()).max(1000) });
const SearchObjectSchema = z.looseObject({
  package: z.looseObject({
    name: PackageNameSchema,
    version: PackageVersionSchema.optional(),
    description: z.string().max(10_000).optional(),
    keywords: z.union([z.array(z.string().max(200)).max(100), z.string().max(2000)]).optional(),
    'dist-tags': z.record(z.string(), z.string().max(256)).optional(),
  }),
});
const PublishedManifestSchema = z.looseObject({ name: PackageNameSchema, version: PackageVersionSchema, nodetool: z.unknown().optional() });

export interface RegistryHit {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly keywords: readonly string[];
  readonly sandboxModules: readonly string[];
  readonly modules?: readonly string[];
  /** Why the published manifest gave no module summaries (it was fetched and failed). */
  readonly modulesMissing?: string;
}

type RegistryAnswer = { readonly ok: true; readonly hits: RegistryHit[] } | { readonly ok: false; readonly note: string };

type JsonAnswer = { readonly ok: true; readonly json: unknown } | CappedFailure | { readonly ok: false; readonly kind: 'not-json' };

async function getJson(url: string, maxBytes: number, timeoutMs: number): Promise<JsonAnswer> {
  const got = await fetchCapped(url, { maxBytes, timeoutMs, headers: { accept: 'application/json' } });
  if (!got.ok) return got;
  try {
    return { ok: true, json: JSON.parse(bodyText(got.bytes)) as unknown };
  } catch {
    return { ok: false, kind: 'not-json' };
  }
}

/** One search request; a note instead of objects when the registry did not answer with a search result. */
async function searchOnce(
  registry: string,
  text: string,
  limits: RegistrySearchLimits,
): Promise<{ ok: true; objects: unknown[] } | { ok: false; note: string }> {
  const url = `${registry}-/v1/search?text=${encodeURIComponent(text)}&size=250`;
  const got = await getJson(url, limits.searchMaxBytes, limits.searchTimeoutMs);
  if (!got.ok) {
    switch (got.kind) {
      case 'unreachable':
      case 'timeout':
        return { ok: false, note: `The registry ${registry} could not be searched (${failurePhrase(got)}); showing the bundled index only.` };
      case 'status':
        return { ok: false, note: `The registry ${registry} has no search endpoint (HTTP ${got.status}); showing the bundled index only.` };
      case 'too-large':
        return { ok: false, note: `The registry ${registry} answered the search badly (${failurePhrase(got)}); showing the bundled index only.` };
      case 'not-json':
        return { ok: false, note: `The registry ${registry} answered the search badly (the answer is not JSON); showing the bundled index only.` };
    }
  }
  const parsed = SearchResponseSchema.safeParse(got.json);
  if (!parsed.success)
    return { ok: false, note: `The registry ${registry} answered the search with something else than an npm search result; showing the bundled index only.` };
  return { ok: true, objects: parsed.data.objects };
}

type PublishedModules = { readonly specifiers: string[]; readonly lines: string[] } | { readonly missing: string };

/** The published manifest's modules, as specifiers and disclosure lines, or why there are none to show. */
async function publishedModules(registry: string, name: string, version: string, limits: RegistrySearchLimits): Promise<PublishedModules> {
  const got = await getJson(`${registry}${name.replace('/', '%2f')}/${encodeURIComponent(version)}`, limits.manifestMaxBytes, limits.manifestTimeoutMs);
  if (!got.ok)
    return { missing: got.kind === 'not-json' ? 'its published manifest is not JSON' : `its published manifest could not be read: ${failurePhrase(got)}` };
  const pkg = PublishedManifestSchema.safeParse(got.json);
  if (!pkg.success || pkg.data.name !== name) return { missing: 'the registry answered with something else than its published manifest' };
  const manifest = NodetoolManifestSchema.safeParse(pkg.data.nodetool);
  if (!manifest.success) return { missing: 'its published "nodetool" manifest does not follow the format' };
  // An entry whose name discovery would skip has no specifier to offer (nor one a search hit could hold).
  const entries = (manifest.data.sandboxModules ?? []).flatMap((e) => {
    const specifier = manifestSpecifier(name, e.name);
    return specifier === undefined ? [] : [{ ...e, specifier }];
  });
  return {
    specifiers: entries.map((e) => e.specifier),
    lines: entries.map((e) =>
      disclosureLine({
        specifier: e.specifier,
        kind: e.kind,
        ...(e.kind === 'wasm' ? { exports: e.exports.map((x) => (typeof x === 'string' ? x : x.as)) } : {}),
        ...(e.description !== undefined ? { description: e.description } : {}),
      }),
    ),
  };
}

/** Packs on `registry` with the sandbox-pack keyword (all of them; the term is applied by the caller). */
export async function searchRegistry(registry: string, limits: RegistrySearchLimits = DEFAULT_SEARCH_LIMITS): Promise<RegistryAnswer> {
  let answer = await searchOnce(registry, `keywords:${PACK_KEYWORD}`, limits);
  if (!answer.ok) return answer;
  if (answer.objects.length === 0) {
    const listed = await searchOnce(registry, '', limits);
    if (listed.ok) answer = listed;
  }
  const found: Omit<RegistryHit, 'sandboxModules'>[] = [];
  for (const object of answer.objects) {
    const parsed = SearchObjectSchema.safeParse(object);
    if (!parsed.success) continue;
    const p = parsed.data.package;
    const keywords = typeof p.keywords === 'string' ? p.keywords.split(/[\s,]+/) : (p.keywords ?? []);
    const version = p.version ?? p['dist-tags']?.latest;
    if (!keywords.includes(PACK_KEYWORD) || version === undefined || found.some((f) => f.name === p.name)) continue;
    found.push({ name: p.name, version, description: (p.description ?? '').slice(0, 1000), keywords: keywords.slice(0, 32).map((k) => k.slice(0, 64)) });
  }
  // One manifest that fails (too large, too slow, not a manifest) costs only its own hit's summaries.
  const hits = await Promise.all(
    found.map(async (hit, i): Promise<RegistryHit> => {
      if (i >= MANIFESTS_PER_SEARCH) return { ...hit, sandboxModules: [] };
      const modules = await publishedModules(registry, hit.name, hit.version, limits);
      if ('missing' in modules) return { ...hit, sandboxModules: [], modulesMissing: modules.missing };
      return { ...hit, sandboxModules: modules.specifiers, modules: modules.lines };
    }),
  );
  return { ok: true, hits };
}

/** Does `hit` match every word of `term` (the bundled index's rule: name, description, keywords, specifiers)? */
function matches(hit: RegistryHit, term: string): boolean {
  const words = term.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = [hit.name, hit.description, ...hit.keywords, ...hit.sandboxModules].join(' ').toLowerCase();
  return words.every((w) => haystack.includes(w));
}

export interface PackSearchOptions {
  readonly term: string;
  /** The configured registry (with a trailing slash). */
  readonly registry: string;
  /** The registry index file or URL; the bundled one by default. */
  readonly index?: string;
  readonly cwd?: string;
}

/**
 * The index's hits merged with the registry's: a pack in both is one hit marked with both sources,
 * with the registry's (live) version and the index's description and recommendation.
 */
export async function searchPacks(
  options: PackSearchOptions,
  askRegistry: (registry: string) => Promise<RegistryAnswer> = searchRegistry,
): Promise<Result<PackSearchResult>> {
  const registry = options.registry.endsWith('/') ? options.registry : `${options.registry}/`;
  const [index, remote] = await Promise.all([loadRegistryIndex(options.index, options.cwd), askRegistry(registry)]);
  if (!index.ok) return index;
  const hits = new Map<string, PackSearchHit>();
  for (const entry of searchIndex(index.value, options.term)) {
    hits.set(entry.name, {
      name: entry.name,
      version: entry.version,
      description: entry.description,
      sandboxModules: entry.sandboxModules,
      recommended: entry.recommended,
      sources: ['index'],
      ...(entry.knownSkipped ? { knownSkipped: entry.knownSkipped } : {}),
    });
  }
  const missing: RegistryHit[] = [];
  if (remote.ok) {
    for (const hit of remote.hits) {
      const modules = hit.modules ? { modules: [...hit.modules] } : {};
      const fromIndex = hits.get(hit.name);
      if (fromIndex) {
        hits.set(hit.name, { ...fromIndex, version: hit.version, sources: ['index', 'registry'], ...modules });
        if (hit.modulesMissing) missing.push(hit);
        continue;
      }
      // A pack of the index that the term did not match stays out, whatever the registry says of it.
      if (index.value.packs.some((p) => p.name === hit.name) || !matches(hit, options.term)) continue;
      if (hit.modulesMissing) missing.push(hit);
      hits.set(hit.name, {
        name: hit.name,
        version: hit.version,
        description: hit.description,
        sandboxModules: [...hit.sandboxModules],
        recommended: false,
        sources: ['registry'],
        ...modules,
      });
    }
  }
  const sorted = [...hits.values()].sort((a, b) => Number(b.recommended) - Number(a.recommended) || a.name.localeCompare(b.name));
  const note = remote.ok ? missingNote(missing) : remote.note;
  return ok({ hits: sorted, registry, ...(note ? { note } : {}) });
}

/** Names at most this many hits whose summaries are missing: two of the longest names, versions and reasons fit the note's 2,000 characters. */
const MISSING_NAMED = 2;

/** The note for shown hits whose published manifest gave no module summaries; undefined if none. */
function missingNote(missing: readonly RegistryHit[]): string | undefined {
  if (missing.length === 0) return undefined;
  const sorted = [...missing].sort((a, b) => a.name.localeCompare(b.name));
  const named = sorted.slice(0, MISSING_NAMED).map((hit) => `${hit.name}@${hit.version} (${hit.modulesMissing ?? ''})`);
  const more = sorted.length - named.length;
  const list = more > 0 ? `${named.join('; ')}; and ${more} more` : named.join('; ');
  return `The registry's module summaries are not shown for ${list}. The packs can still be installed; the installer reads the modules from what it installs.`;
}

/**
 * searchPacks for a long-lived face (the app): the registry's answer does not depend on the term
 * (every keyword pack is fetched, the term applied here), so it is kept for `ttlMs` per registry
 * and typing in the search field costs no registry requests. Failures are not kept.
 */
export function createPackSearch(ttlMs = 30_000): (options: PackSearchOptions) => Promise<Result<PackSearchResult>> {
  const kept = new Map<string, { at: number; answer: Promise<RegistryAnswer> }>();
  const cached = (registry: string): Promise<RegistryAnswer> => {
    const hit = kept.get(registry);
    if (hit && performance.now() - hit.at < ttlMs) return hit.answer;
    const answer = searchRegistry(registry);
    kept.set(registry, { at: performance.now(), answer });
    void answer.then((a) => {
      if (!a.ok && kept.get(registry)?.answer === answer) kept.delete(registry);
    });
    return answer;
  };
  return (options) => searchPacks(options, cached);
}
