// The config-only pack that carries one corpus library, the way the user wrapped each one:
// a package.json whose manifest names the library (or its subpath export) as the module's `npm`
// field, with the library as its only dependency, pinned exactly — and nothing else, no code.
// `packCorpusPacks` turns a set of them into tarballs with one `npm pack` (the app's own npm,
// scripts off), ready for `sandbox-packs install <tgz>`.

import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { npmErrorSummary, runNpm } from '../../install/npm-runner.ts';
import { corpusPackName, npmField, type CorpusLibrary } from './libraries.ts';

export class CorpusPackError extends Error {
  override readonly name = 'CorpusPackError';
}

/** The pack's package.json. */
export function corpusPackManifest(lib: CorpusLibrary): Record<string, unknown> {
  return {
    name: corpusPackName(lib),
    version: '1.0.0',
    description: `${lib.name} ${lib.version} as a config-only sandbox pack (compatibility corpus).`,
    license: 'MIT',
    keywords: ['sandbox-pack'],
    dependencies: { [lib.name]: lib.version },
    nodetool: {
      apiVersion: 1,
      sandboxModules: [{ name: '.', kind: 'js', npm: npmField(lib), description: `${lib.name} ${lib.version}` }],
    },
  };
}

/** Writes the pack folder `<parent>/<pack name without scope>` and returns it. */
export async function writeCorpusPack(lib: CorpusLibrary, parent: string): Promise<string> {
  const dir = path.join(parent, corpusPackName(lib).split('/')[1]!);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(corpusPackManifest(lib), null, 2)}\n`);
  return dir;
}

const PackJsonOutput = z.array(z.object({ name: z.string(), filename: z.string() }).loose());

/** Writes and packs every library's pack (one npm run); pack name → tarball path. */
export async function packCorpusPacks(libs: readonly CorpusLibrary[], workDir: string): Promise<Map<string, string>> {
  const sources = path.join(workDir, 'pack-sources');
  const out = path.join(workDir, 'tarballs');
  await mkdir(out, { recursive: true });
  const dirs = [];
  for (const lib of libs) dirs.push(await writeCorpusPack(lib, sources));
  const run = await runNpm(['pack', ...dirs, '--pack-destination', out, '--json', '--ignore-scripts'], { cwd: workDir });
  if (run.code !== 0) throw new CorpusPackError(`npm pack failed: ${npmErrorSummary(run)}`);
  const packed = PackJsonOutput.parse(JSON.parse(run.stdout) as unknown);
  const files = new Set(await readdir(out));
  const tarballs = new Map<string, string>();
  for (const entry of packed) {
    if (!files.has(entry.filename)) throw new CorpusPackError(`npm pack reported ${entry.filename}, which is not in ${out}`);
    tarballs.set(entry.name, path.join(out, entry.filename));
  }
  return tarballs;
}
