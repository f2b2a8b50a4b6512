// Turns a shipped pack folder (packs/<dir>) into the tarball the app installs on first run: the
// pack as `npm pack` makes it, with its production dependencies bundled inside
// (`bundleDependencies`), so the real installer can install it from the local file with no
// network at all. Built at bundle time by scripts/bundle-backend.mjs, and on demand in a dev
// checkout; both keep the result under a content key so an unchanged pack is never rebuilt.
//
// This runs npm on our own packs only, with scripts off; nothing here executes pack code.

import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { cleanNpmEnv } from '../install/npm-runner.ts';

/** Why a pack tarball could not be built; a build-time failure, reported with npm's words. */
export class PackTarballError extends Error {
  override readonly name = 'PackTarballError';
}

const StampSchema = z.object({ key: z.string().regex(/^[0-9a-f]{64}$/), name: z.string(), version: z.string() }).strict();
const PackJsonSchema = z.object({ name: z.string(), version: z.string(), dependencies: z.record(z.string(), z.string()).optional() }).loose();

async function filesUnder(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full, base)));
    else if (entry.isFile()) out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}

/** sha256 over the pack folder's files (names and bytes), excluding node_modules. */
export async function packSourceKey(packDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await filesUnder(packDir)) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(packDir, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function npm(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', [...args], { cwd, env: cleanNpmEnv(), stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new PackTarballError(`npm could not be started: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else
        reject(
          new PackTarballError(
            `npm ${args[0]} failed in ${cwd} (exit ${code}): ${Buffer.concat(err).toString('utf8').trim().split('\n').slice(-5).join(' | ')}`,
          ),
        );
    });
  });
}

export interface PackTarball {
  readonly file: string;
  readonly name: string;
  readonly version: string;
  /** False when an up-to-date tarball was reused. */
  readonly built: boolean;
}

/**
 * Builds (or reuses) `<outDir>/pack.tgz` for the pack in `packDir`. `outDir` also gets a
 * stamp.json with the source key; a changed pack folder rebuilds. Dependencies come from npm's
 * configured registry or its cache, once, at build time.
 */
export async function buildPackTarball(packDir: string, outDir: string): Promise<PackTarball> {
  const key = await packSourceKey(packDir);
  const tarball = path.join(outDir, 'pack.tgz');
  const stampFile = path.join(outDir, 'stamp.json');
  try {
    const stamp = StampSchema.safeParse(JSON.parse(await readFile(stampFile, 'utf8')));
    await readFile(tarball);
    if (stamp.success && stamp.data.key === key) return { file: tarball, name: stamp.data.name, version: stamp.data.version, built: false };
  } catch {
    // No usable earlier build: make one.
  }
  const work = await mkdtemp(path.join(os.tmpdir(), 'sp-pack-'));
  try {
    const staged = path.join(work, 'pack');
    await cp(packDir, staged, { recursive: true, filter: (source) => path.basename(source) !== 'node_modules' });
    const manifestFile = path.join(staged, 'package.json');
    const parsed = PackJsonSchema.safeParse(JSON.parse(await readFile(manifestFile, 'utf8')));
    if (!parsed.success) throw new PackTarballError(`${packDir}/package.json is not a package manifest`);
    const deps = Object.keys(parsed.data.dependencies ?? {});
    if (deps.length > 0) {
      // Bundled dependencies travel inside the tarball, so installing it needs no registry.
      const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>;
      manifest.bundleDependencies = deps;
      await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
      await npm(['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], staged);
    }
    const out = path.join(work, 'out');
    await mkdir(out);
    const packed = z
      .array(z.object({ filename: z.string() }).loose())
      .min(1)
      .parse(JSON.parse(await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', out], staged)));
    await mkdir(outDir, { recursive: true });
    await rename(path.join(out, packed[0]!.filename), tarball).catch(async () => {
      // Another file system (tmp vs out/): copy instead.
      await cp(path.join(out, packed[0]!.filename), tarball);
    });
    await writeFile(stampFile, `${JSON.stringify({ key, name: parsed.data.name, version: parsed.data.version }, null, 2)}\n`);
    return { file: tarball, name: parsed.data.name, version: parsed.data.version, built: true };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
