// Finding packs: the registry index `search` reads — the bundled default (registry/index.json,
// listing our own packs) or one given as a file path or an https URL — and the configured
// registry's npm search, merged (below). Whatever the source, JSON is parsed from `unknown`.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { PackSearchHit, PackSearchResult } from '../../shared/contract/search-schemas.ts';
import { disclosureLine } from '../../shared/packs/disclosure.ts';
import { manifestSpecifier } from '../../shared/packs/specifier.ts';
import { NodetoolManifestSchema, PackageNameSchema, PackageVersionSchema } from '../../shared/protocol/manifest.ts';
import { RegistryIndexSchema, searchIndex, type RegistryIndex } from '../../shared/protocol/registry-index.ts';
import { parseWith } from '../../shared/protocol/parse.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { assetPath } from '../platform/assets.ts';

export const BUNDLED_INDEX = assetPath('registry-index');

export async function loadRegistryIndex(source: string = BUNDLED_INDEX, cwd: string = process.cwd()): Promise<Result<RegistryIndex>> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    if (!/^https:\/\//i.test(source) && !/^http:\/\/(?:127\.0\.0\.1|localhost)[:/]/i.test(source)) {
      return fail('usage', 'A registry index URL must use https.');
    }
    try {
      const response = await fetch(source);
      if (!response.ok) return fail('registry-unreachable', `The registry index ${source} answered HTTP ${response.status}.`);
      text = await response.text();
    } catch (error) {
      return fail('registry-unreachable', `The registry index ${source} could not be fetched: ${(error as Error).message}`);
    }
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
const SEARCH_TIMEOUT_MS = 5_000;
const MANIFEST_TIMEOUT_MS = 3_000;
/** Published manifests fetched per search (for module summaries). */
const MANIFESTS_PER_SEARCH = 25;
const MAX_RESPONSE_CHARS = 5 * 1024 * 1024;

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
}

type RegistryAnswer = { readonly ok: true; readonly hits: RegistryHit[] } | { readonly ok: false; readonly note: string };

async function getJson(url: string, timeoutMs: number): Promise<{ status: number; json?: unknown; error?: string }> {
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      return { status: response.status };
    }
    const text = await response.text();
    if (text.length > MAX_RESPONSE_CHARS) return { status: response.status, error: 'the answer is too large' };
    return { status: response.status, json: JSON.parse(text) as unknown };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    return { status: 0, error: e.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (e.cause?.code ?? e.message) };
  }
}

/** One search request; undefined objects when the registry answered but not with a search result. */
async function searchOnce(registry: string, text: string): Promise<{ ok: true; objects: unknown[] } | { ok: false; note: string }> {
  const url = `${registry}-/v1/search?text=${encodeURIComponent(text)}&size=250`;
  const got = await getJson(url, SEARCH_TIMEOUT_MS);
  if (got.status === 0)
    return { ok: false, note: `The registry ${registry} could not be searched (${got.error ?? 'no answer'}); showing the bundled index only.` };
  if (got.json === undefined) {
    return {
      ok: false,
      note: got.error
        ? `The registry ${registry} answered the search badly (${got.error}); showing the bundled index only.`
        : `The registry ${registry} has no search endpoint (HTTP ${got.status}); showing the bundled index only.`,
    };
  }
  const parsed = SearchResponseSchema.safeParse(got.json);
  if (!parsed.success)
    return { ok: false, note: `The registry ${registry} answered the search with something else than an npm search result; showing the bundled index only.` };
  return { ok: true, objects: parsed.data.objects };
}

/** The published manifest's modules, as specifiers and disclosure lines; undefined if unavailable. */
async function publishedModules(registry: string, name: string, version: string): Promise<{ specifiers: string[]; lines: string[] } | undefined> {
  const got = await getJson(`${registry}${name.replace('/', '%2f')}/${encodeURIComponent(version)}`, MANIFEST_TIMEOUT_MS);
  const pkg = PublishedManifestSchema.safeParse(got.json);
  if (!pkg.success || pkg.data.name !== name) return undefined;
  const manifest = NodetoolManifestSchema.safeParse(pkg.data.nodetool);
  if (!manifest.success) return undefined;
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
export async function searchRegistry(registry: string): Promise<RegistryAnswer> {
  let answer = await searchOnce(registry, `keywords:${PACK_KEYWORD}`);
  if (!answer.ok) return answer;
  if (answer.objects.length === 0) {
    const listed = await searchOnce(registry, '');
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
  const hits = await Promise.all(
    found.map(async (hit, i): Promise<RegistryHit> => {
      const modules = i < MANIFESTS_PER_SEARCH ? await publishedModules(registry, hit.name, hit.version) : undefined;
      return modules ? { ...hit, sandboxModules: modules.specifiers, modules: modules.lines } : { ...hit, sandboxModules: [] };
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
  if (remote.ok) {
    for (const hit of remote.hits) {
      const modules = hit.modules ? { modules: [...hit.modules] } : {};
      const fromIndex = hits.get(hit.name);
      if (fromIndex) {
        hits.set(hit.name, { ...fromIndex, version: hit.version, sources: ['index', 'registry'], ...modules });
        continue;
      }
      // A pack of the index that the term did not match stays out, whatever the registry says of it.
      if (index.value.packs.some((p) => p.name === hit.name) || !matches(hit, options.term)) continue;
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
  return ok({ hits: sorted, registry, ...(remote.ok ? {} : { note: remote.note }) });
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
