// The corpus entries the test suite runs without a network (`npm test` has none): small libraries
// under permissive licences whose pack tarballs are committed under fixtures/corpus/, each the
// config-only corpus pack with its one dependency bundled inside (`bundleDependencies`, the way
// the shipped packs travel), so the real installer installs it from the file alone. The library's
// own files, its LICENSE included, are inside each tarball untouched (package/node_modules/<lib>/).
// `node --import tsx scripts/make-corpus-fixtures.ts` rebuilds them (it needs the registry).
//
// Chosen to cover the shapes a library ships in: an ES module package (smol-toml, colord), a
// CommonJS package of many files (semver), and a UMD bundle (mustache).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS, corpusPackName, type CorpusLibrary } from './libraries.ts';

export const CORPUS_FIXTURES_DIR = fileURLToPath(new URL('../../../fixtures/corpus/', import.meta.url));

export const OFFLINE_SUBSET_NAMES = ['smol-toml', 'colord', 'semver', 'mustache'] as const;

export const OFFLINE_SUBSET: readonly CorpusLibrary[] = OFFLINE_SUBSET_NAMES.map((name) => {
  const lib = CORPUS.find((entry) => entry.name === name);
  if (!lib) throw new Error(`the offline subset names ${name}, which is not in the corpus`);
  return lib;
});

/** The committed tarball of a library's corpus pack. */
export function corpusFixtureTarball(lib: CorpusLibrary): string {
  return path.join(CORPUS_FIXTURES_DIR, `${corpusPackName(lib).split('/')[1]!}-${lib.version}.tgz`);
}
