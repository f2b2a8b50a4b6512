// Where the first run finds a shipped pack's tarball and the precompiled cache of their npm
// modules. The staged bundle has them under `_sandbox/` (registered in the asset registry, their
// sha256 in asset-manifest.json, digest-checked by verify-backend-bundle); a dev checkout builds
// the same files on demand into out/_sandbox/, once per content.

import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { BUNDLED, SHIPPED_PACKS, assetPath, backendRoot, type AssetId, type ShippedPack } from '../platform/assets.ts';
import { buildPackTarball } from './pack-tarball.ts';
import { buildPrecompiledFile, type PrecompiledSource } from './precompiled.ts';

/** Thrown when the staged bundle lacks a registered pack tarball: a broken build, not a user error. */
export class MissingShippedPackError extends Error {
  override readonly name = 'MissingShippedPackError';
}

export async function shippedTarball(pack: ShippedPack): Promise<string> {
  const file = assetPath(`pack:${pack.dir}` as AssetId);
  if (BUNDLED) {
    try {
      await access(file);
    } catch {
      throw new MissingShippedPackError(`the bundle has no ${file}; rebuild it with scripts/bundle-backend.mjs`);
    }
    return file;
  }
  const built = await buildPackTarball(path.join(backendRoot(), 'packs', pack.dir), path.dirname(file));
  return built.file;
}

/** The part of the staged asset-manifest.json (scripts/bundle-backend.mjs) this needs. */
const ManifestSchema = z.looseObject({
  assets: z.array(z.looseObject({ id: z.string(), files: z.array(z.looseObject({ path: z.string(), sha256: z.string() })) })),
});

/**
 * The precompiled cache and the sha256 it must have: in the bundle, the one asset-manifest.json
 * recorded at packaging time; in dev, the stamp written when it was built. Undefined when the
 * bundle's manifest does not list it (the first run then compiles as usual).
 */
export async function shippedPrecompiled(): Promise<PrecompiledSource | undefined> {
  const file = assetPath('precompiled-cache');
  if (BUNDLED) {
    try {
      const manifest = ManifestSchema.parse(JSON.parse(await readFile(path.join(backendRoot(), 'asset-manifest.json'), 'utf8')));
      const sha256 = manifest.assets.find((asset) => asset.id === 'precompiled-cache')?.files[0]?.sha256;
      return sha256 ? { file, sha256 } : undefined;
    } catch {
      return undefined;
    }
  }
  const tarballs = await Promise.all(SHIPPED_PACKS.map(async (pack) => ({ pack, file: await shippedTarball(pack) })));
  const built = await buildPrecompiledFile(tarballs, path.dirname(file));
  return { file: built.file, sha256: built.sha256 };
}
