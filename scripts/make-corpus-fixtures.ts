// Rebuilds fixtures/corpus/: for each library of the corpus's offline subset
// (electron/testing/corpus/offline-subset.ts), its config-only pack as the tarball `npm pack`
// makes, with the pinned library bundled inside, built by the same code that builds the shipped
// packs' tarballs (electron/first-run/pack-tarball.ts, npm scripts off). Needs the npm registry;
// run it when the subset or a pinned version changes:
//
//   node --import tsx scripts/make-corpus-fixtures.ts

import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildPackTarball } from '../electron/first-run/pack-tarball.ts';
import { writeCorpusPack } from '../electron/testing/corpus/corpus-pack.ts';
import { CORPUS_FIXTURES_DIR, OFFLINE_SUBSET, corpusFixtureTarball } from '../electron/testing/corpus/offline-subset.ts';

const work = await mkdtemp(path.join(os.tmpdir(), 'sp-corpus-fixtures-'));
try {
  await mkdir(CORPUS_FIXTURES_DIR, { recursive: true });
  for (const lib of OFFLINE_SUBSET) {
    const packDir = await writeCorpusPack(lib, path.join(work, 'sources'));
    const built = await buildPackTarball(packDir, path.join(work, 'out', path.basename(packDir)));
    const target = corpusFixtureTarball(lib);
    await copyFile(built.file, target);
    console.log(`${path.relative(process.cwd(), target)}: ${built.name}@${built.version} with ${lib.name}@${lib.version} bundled`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
