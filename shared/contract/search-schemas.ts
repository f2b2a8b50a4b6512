// What packs.search answers: hits from the bundled registry index merged with the configured
// registry's npm search (packs published with the `sandbox-pack` keyword), each marked with where
// it came from, and a note when the registry could not be searched (or some of its answers read). Every text field is pack- or
// registry-supplied: faces show it through displayText, never as HTML.

import { z } from 'zod';
import { LIMITS } from '../protocol/limits.ts';
import { SearchHitSchema } from './pack-schemas.ts';

/** Where a hit came from: the index we ship, the registry's search, or both. */
export const SEARCH_SOURCES = ['index', 'registry'] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

export const PackSearchHitSchema = SearchHitSchema.extend({
  sources: z.array(z.enum(SEARCH_SOURCES)).min(1).max(2),
  /** One line per module, derived from the registry's manifest under the disclosure-tier rules; absent when the registry did not give one. */
  modules: z.array(z.string().max(LIMITS.disclosureLineChars)).max(LIMITS.modulesPerPack).optional(),
  /** From the bundled index: why the pack's only module is known to be skipped (nothing to install it for). */
  knownSkipped: z.string().max(500).optional(),
});
export type PackSearchHit = z.infer<typeof PackSearchHitSchema>;

/** The most hits one search answers. */
export const SEARCH_HITS_MAX = 10_000;

export const PackSearchResultSchema = z.object({
  hits: z.array(PackSearchHitSchema).max(SEARCH_HITS_MAX),
  /** The registry that was searched. */
  registry: z.string().max(2048),
  /** Set when only the bundled index could be used (offline, or a registry without search), or when some hits' module summaries could not be read. */
  note: z.string().max(2000).optional(),
});
export type PackSearchResult = z.infer<typeof PackSearchResultSchema>;
