// The registry index `search` reads: a small JSON document listing packs with enough to choose
// one (name, description, version, the sandbox module specifiers, a recommended flag). It may come
// from a URL, so it is parsed from `unknown`; search over it is pure and lives here so the UI can
// run the same search in the page.

import { z } from 'zod';
import { PackageNameSchema, PackageVersionSchema } from './manifest.ts';

export const RegistryIndexEntrySchema = z
  .object({
    name: PackageNameSchema,
    description: z.string().max(1000),
    version: PackageVersionSchema,
    /** Import specifiers the pack provides, e.g. ["sandbox-csv"]. */
    sandboxModules: z.array(z.string().min(1).max(300)).max(64),
    recommended: z.boolean(),
    keywords: z.array(z.string().max(64)).max(32).optional(),
    /** Why the pack's only sandbox module is known to fail admission; faces show this in place of Install. */
    knownSkipped: z.string().min(1).max(500).optional(),
  })
  .strict();
export type RegistryIndexEntry = z.infer<typeof RegistryIndexEntrySchema>;

export const RegistryIndexSchema = z
  .object({
    format: z.literal(1),
    packs: z.array(RegistryIndexEntrySchema).max(10_000),
  })
  .strict();
export type RegistryIndex = z.infer<typeof RegistryIndexSchema>;

/**
 * Entries matching every word of `term` (case-insensitive) in name, description, keywords or
 * module specifiers; recommended first, then by name. An empty term lists everything.
 */
export function searchIndex(index: RegistryIndex, term: string): RegistryIndexEntry[] {
  const words = term.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = index.packs.filter((entry) => {
    const haystack = [entry.name, entry.description, ...(entry.keywords ?? []), ...entry.sandboxModules].join(' ').toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
  return hits.sort((a, b) => Number(b.recommended) - Number(a.recommended) || a.name.localeCompare(b.name));
}
