// The shipped packs' npm modules, compiled once at packaging time. Compiling a bridge pack's npm
// module (two esbuild passes and the admission probe) was most of the first discovery; the compile
// cache is content-addressed (electron/compiler/compile-cache.ts), and a seeded root has the same
// layout on every machine (bundled dependencies sit inside each pack's folder), so the entries
// made in a scratch root at packaging time are valid in the user's root as they are.
//
// Invariant: nothing from this file is trusted as given — the file must have its recorded sha256,
// and each entry is still checked against the installed files when read (`installPrecompiled`).

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { openCatalog } from '../catalog/catalog.ts';
import { JS_ANALYZER_ID } from '../../shared/packs/js-analysis.ts';
import { COMPILER_ID } from '../compiler/build-options.ts';
import { CACHE_DIR, CacheEntrySchema, CompileCache, sha256Hex, type CacheEntry } from '../compiler/compile-cache.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { createProbe } from '../compiler/probe.ts';
import { activePackNames } from '../install/active-packs.ts';
import { installShippedTarballs, type SeedTarball } from './seed-install.ts';

const HEX64 = /^[0-9a-f]{64}$/;

export const PrecompiledSchema = z
  .object({
    format: z.literal(1),
    /** The compiler that made the entries; the cache key covers it too, this is for people reading the file. */
    compilerId: z.string().max(300),
    entries: z.array(z.object({ lookup: z.string().regex(HEX64), entry: CacheEntrySchema }).strict()).max(1000),
  })
  .strict();
export type Precompiled = z.infer<typeof PrecompiledSchema>;

/** Where a precompiled cache is and the sha256 it must have. */
export interface PrecompiledSource {
  readonly file: string;
  readonly sha256: string;
}

export type PrecompiledOutcome =
  /** Entries written into the root's compile cache (each still checked against the files when read). */
  | { readonly entries: number }
  /** The whole file was not used; the modules are compiled as usual. */
  | { readonly ignored: string };

/** The packs an entry was built from: every input must sit inside one of them. */
function entryBelongsTo(entry: CacheEntry, packNames: readonly string[]): boolean {
  return packNames.some((name) => entry.inputs.length > 0 && entry.inputs.every((input) => input.path.startsWith(`node_modules/${name}/`)));
}

/**
 * Copies the entries for `packNames` from a verified precompiled cache into `root`'s compile
 * cache. Never fails the first run: a missing, damaged or mismatched file is reported and ignored.
 *
 * Trust is checked twice. The file itself must have the sha256 recorded when it was built (the
 * staged asset-manifest.json, or dev's stamp next to it); a file that does not is ignored whole.
 * And each entry is only written into the root's cache, never used directly: the compiler reads
 * it like any cache entry, re-hashing the installed files it was built from, so an entry that does
 * not match what was installed is a miss and that module is compiled as usual.
 */
export async function installPrecompiled(root: string, source: PrecompiledSource, packNames: readonly string[]): Promise<PrecompiledOutcome> {
  let bytes: Buffer;
  try {
    bytes = await readFile(source.file);
  } catch (error) {
    return { ignored: `the precompiled cache could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  if (sha256Hex(bytes) !== source.sha256) return { ignored: 'the precompiled cache does not have the sha256 recorded when it was built' };
  let parsed: Precompiled;
  try {
    const result = PrecompiledSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!result.success) return { ignored: 'the precompiled cache is not in the expected format' };
    parsed = result.data;
  } catch {
    return { ignored: 'the precompiled cache is not JSON' };
  }
  const cache = new CompileCache(root);
  let written = 0;
  for (const { lookup, entry } of parsed.entries) {
    if (!entryBelongsTo(entry, packNames)) continue;
    await cache.write(lookup, entry);
    written++;
  }
  return { entries: written };
}

/**
 * Builds the precompiled cache for the tarballs: installs them into a scratch root exactly as a
 * first run does, discovers it with the real compiler, and collects the cache entries that made.
 * Answers the file's bytes; the caller records their sha256.
 */
export async function buildPrecompiled(tarballs: readonly SeedTarball[]): Promise<string> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'sp-precompile-'));
  const probe = createProbe();
  try {
    const installed = await installShippedTarballs({ root: scratch, tarballs, registry: 'http://127.0.0.1:9/' });
    if (!installed.ok) throw new Error(`the shipped packs could not be installed to precompile them: ${installed.code}: ${installed.message}`);
    const catalog = await openCatalog({ root: scratch, onlyPacks: () => activePackNames(scratch), compiler: createNpmCompiler({ root: scratch, probe }) });
    if (!catalog.ok) throw new Error(catalog.message);
    const dir = path.join(scratch, CACHE_DIR);
    const entries: Precompiled['entries'] = [];
    for (const name of (await readdir(dir).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{64}\.json$/.test(n)).sort()) {
      const entry = CacheEntrySchema.parse(JSON.parse(await readFile(path.join(dir, name), 'utf8')));
      // A probe that timed out on a busy machine is not cached, so every entry here is an outcome.
      entries.push({ lookup: name.slice(0, 64), entry });
    }
    const file: Precompiled = { format: 1, compilerId: COMPILER_ID, entries };
    return `${JSON.stringify(file)}\n`;
  } finally {
    await probe.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

const StampSchema = z.object({ key: z.string().regex(HEX64), sha256: z.string().regex(HEX64) }).strict();

/** The key a precompiled cache is rebuilt under: the tarballs' bytes and the compiler. */
async function precompiledKey(tarballs: readonly SeedTarball[]): Promise<string> {
  // The analyzer id too: entries carry its verdict, which an analyzer change makes useless (discovery would parse again).
  const hash = createHash('sha256').update(`${COMPILER_ID}\0${JS_ANALYZER_ID}\0`);
  for (const { pack, file } of [...tarballs].sort((a, b) => (a.pack.name < b.pack.name ? -1 : 1))) {
    hash.update(`${pack.name}\0${sha256Hex(await readFile(file))}\n`);
  }
  return hash.digest('hex');
}

/**
 * Builds (or reuses, by key) `<outDir>/cache.json` and its stamp. Used by bundle-backend at
 * packaging time and, in a dev checkout, on demand like the tarballs themselves.
 */
export async function buildPrecompiledFile(tarballs: readonly SeedTarball[], outDir: string): Promise<PrecompiledSource & { readonly built: boolean }> {
  const key = await precompiledKey(tarballs);
  const file = path.join(outDir, 'cache.json');
  const stampFile = path.join(outDir, 'stamp.json');
  try {
    const stamp = StampSchema.parse(JSON.parse(await readFile(stampFile, 'utf8')));
    if (stamp.key === key && sha256Hex(await readFile(file)) === stamp.sha256) return { file, sha256: stamp.sha256, built: false };
  } catch {
    // No usable earlier build: make one.
  }
  const text = await buildPrecompiled(tarballs);
  await mkdir(outDir, { recursive: true });
  const sha256 = sha256Hex(text);
  await writeFile(file, text);
  await writeFile(stampFile, `${JSON.stringify({ key, sha256 }, null, 2)}\n`);
  return { file, sha256, built: true };
}
