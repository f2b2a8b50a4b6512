// Content-addressed cache of compiled npm modules, under the install root so it goes away with
// it. An entry is found by a lookup name (pack, npm name, where the package was found, the
// compiler id, the pack's dependency closure) and is valid only while its key — a hash over every input file's content
// (esbuild's metafile input list plus the used packages' package.json files), the esbuild version
// and the build options — still matches what is on disk, and while the nearer node_modules
// directories resolution passed over are still absent (see resolution-guard.ts). Checking that
// costs a re-hash of the listed files and a few stats, no bundling, which is what makes a warm
// discovery cheap; installing one pack does not invalidate the others. Entries are parsed back with zod, their
// paths must stay inside the root, and writes are atomic (temp file + rename).

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCodeSchema as CodeSchema } from '../../shared/protocol/codes.ts';
import { COMPILER_VERSION } from './build-options.ts';
import { isInside } from './package-locator.ts';

export const CACHE_DIR = path.join('.sandbox-cache', 'compiler');

const HEX64 = /^[0-9a-f]{64}$/;
const HASH_BATCH = 32;

/** A root-relative POSIX path that cannot climb out of the root or name a device. */
const RelativePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.includes('\\') && !p.includes('\0'), 'must be a relative POSIX path')
  .refine((p) => p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..'), 'must not contain empty, "." or ".." segments');

export const CacheInputSchema = z.object({ path: RelativePathSchema, sha256: z.string().regex(HEX64) }).strict();
export type CacheInput = z.infer<typeof CacheInputSchema>;

const WarningSchema = z.object({ code: CodeSchema, message: z.string().max(2000) }).strict();

/** The static checks' verdict on the bundle (shared/packs/pack-graph.ts, StaticVerdict); discovery re-checks its digest. */
export const VerdictSchema = z
  .object({ analyzer: z.string().max(300), sha256: z.string().regex(HEX64), exportNames: z.array(z.string().max(1000)).max(100_000) })
  .strict();

export const CacheEntrySchema = z
  .object({
    format: z.literal(COMPILER_VERSION),
    compilerId: z.string().max(300),
    key: z.string().regex(HEX64),
    inputs: z.array(CacheInputSchema).max(20_000),
    /** node_modules directories lookup passed over; the entry is valid only while none exists. */
    absent: z.array(RelativePathSchema).max(100_000),
    /** Set when resolution could not be replayed (symlinked packages): the root lockfile's hash then guards the entry. */
    lockfile: z.string().regex(HEX64).optional(),
    outcome: z.discriminatedUnion('ok', [
      z
        .object({
          ok: z.literal(true),
          source: z.string(),
          inputsDigest: z.string().regex(HEX64),
          warnings: z.array(WarningSchema).max(200),
          analysis: VerdictSchema.optional(),
        })
        .strict(),
      z.object({ ok: z.literal(false), code: CodeSchema, message: z.string().max(4000) }).strict(),
    ]),
  })
  .strict();
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The content key: every input's hash plus everything else that shapes the output. */
export function contentKey(inputs: readonly CacheInput[], extra: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of extra) hash.update(`${part}\0`);
  for (const input of [...inputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${input.path}\0${input.sha256}\n`);
  }
  return hash.digest('hex');
}

/** Hash the files of a metafile input list (root-relative paths, as esbuild reports them). */
export async function hashInputs(rootReal: string, relPaths: readonly string[]): Promise<CacheInput[] | undefined> {
  const posixPaths: string[] = [];
  for (const rel of relPaths) {
    const posix = rel.split(path.sep).join('/');
    if (!RelativePathSchema.safeParse(posix).success) return undefined;
    if (!isInside(rootReal, path.join(rootReal, ...posix.split('/')))) return undefined;
    posixPaths.push(posix);
  }
  // Reads in small parallel batches: a warm start is mostly this, and files are independent.
  const out: CacheInput[] = [];
  for (let i = 0; i < posixPaths.length; i += HASH_BATCH) {
    const batch = posixPaths.slice(i, i + HASH_BATCH);
    const hashed = await Promise.all(
      batch.map(async (posix) => {
        try {
          return { path: posix, sha256: sha256Hex(await fs.readFile(path.join(rootReal, ...posix.split('/')))) };
        } catch {
          return undefined;
        }
      }),
    );
    for (const h of hashed) {
      if (h === undefined) return undefined;
      out.push(h);
    }
  }
  return out;
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** Keep only the paths that exist (package.json files are optional in a package directory). */
export async function existing(rootReal: string, relPaths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const rel of relPaths) if (await exists(path.join(rootReal, ...rel.split('/')))) out.push(rel);
  return out;
}

export class CompileCache {
  readonly dir: string;

  constructor(private readonly rootReal: string) {
    this.dir = path.join(rootReal, CACHE_DIR);
  }

  private fileFor(lookup: string): string {
    if (!HEX64.test(lookup)) throw new TypeError(`CompileCache: lookup name must be a sha256 hex digest, got ${JSON.stringify(lookup)}`);
    return path.join(this.dir, `${lookup}.json`);
  }

  /** The stored entry if its inputs still hash to its key and its resolution still holds; undefined on any miss or damage. */
  async read(lookup: string, keyExtra: readonly string[], currentLockfile: () => Promise<string>): Promise<CacheEntry | undefined> {
    let raw: string;
    try {
      raw = await fs.readFile(this.fileFor(lookup), 'utf8');
    } catch {
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return undefined;
    }
    const parsed = CacheEntrySchema.safeParse(json);
    if (!parsed.success) return undefined;
    const entry = parsed.data;
    const current = await hashInputs(
      this.rootReal,
      entry.inputs.map((i) => i.path),
    );
    if (current === undefined || contentKey(current, keyExtra) !== entry.key) return undefined;
    const present = await Promise.all(entry.absent.map((rel) => exists(path.join(this.rootReal, ...rel.split('/')))));
    if (present.includes(true)) return undefined;
    if (entry.lockfile !== undefined && entry.lockfile !== (await currentLockfile())) return undefined;
    return entry;
  }

  async write(lookup: string, entry: CacheEntry): Promise<void> {
    const target = this.fileFor(lookup);
    await fs.mkdir(this.dir, { recursive: true });
    const temp = path.join(this.dir, `.${lookup}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await fs.writeFile(temp, JSON.stringify(entry), { flag: 'wx' });
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}
