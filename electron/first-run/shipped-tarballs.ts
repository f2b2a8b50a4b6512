// Where the first run finds a shipped pack's tarball. The staged bundle has it under
// `_sandbox/<pack>/pack.tgz` (registered in the asset registry, digest-checked by
// verify-backend-bundle); a dev checkout builds the same tarball on demand into out/_sandbox/,
// once per pack content, from the folder under packs/.

import { access } from 'node:fs/promises';
import path from 'node:path';
import { BUNDLED, assetPath, backendRoot, type AssetId, type ShippedPack } from '../platform/assets.ts';
import { buildPackTarball } from './pack-tarball.ts';

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
