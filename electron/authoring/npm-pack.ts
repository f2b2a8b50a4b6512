// `npm pack` of an author's working folder, by the npm the app installs with (npm-runner.ts's
// launcher: the shipped npm on the app's runtime, npm_config_* scrubbed), so `check` sees exactly
// the files a publish would ship: `files`, `.npmignore` and npm's own always/never rules. Scripts
// stay off (`prepack`/`prepare` would run author code), and npm gets a userconfig and cache of
// ours, so a user's ~/.npmrc cannot change what is packed.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { npmErrorSummary, runNpm } from '../install/npm-runner.ts';

export interface PackedTarball {
  readonly file: string;
  readonly name: string;
  readonly version: string;
  /** Compressed size of the tarball (bytes). */
  readonly size: number;
  readonly unpackedSize: number;
  /** Every file in the tarball, as npm lists it (paths relative to the package). */
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

const PackJsonSchema = z
  .array(
    z.looseObject({
      name: z.string(),
      version: z.string(),
      filename: z.string().min(1),
      size: z.number(),
      unpackedSize: z.number(),
      files: z.array(z.looseObject({ path: z.string(), size: z.number() })),
    }),
  )
  .length(1);

/** Pack `dir` into `workDir` (which the caller owns and removes). */
export async function npmPack(dir: string, workDir: string): Promise<Result<PackedTarball>> {
  const userconfig = path.join(workDir, 'pack-npmrc');
  await writeFile(userconfig, '');
  const run = await runNpm(
    [
      'pack',
      '--json',
      '--ignore-scripts=true',
      '--pack-destination',
      workDir,
      '--userconfig',
      userconfig,
      '--cache',
      path.join(workDir, 'pack-cache'),
      '--loglevel=warn',
      '--color=false',
      '--progress=false',
      '--update-notifier=false',
    ],
    { cwd: dir },
  );
  if (run.failure) return run.failure;
  if (run.code !== 0) return fail('install-failed', `npm pack failed in ${dir}: ${npmErrorSummary(run)}`);
  let json: unknown;
  try {
    // npm prints notices before the JSON on some versions; the JSON array is the last thing out.
    json = JSON.parse(run.stdout.slice(run.stdout.indexOf('[')));
  } catch {
    return fail('invalid-data', `npm pack in ${dir} did not print JSON: ${run.stdout.slice(0, 200)}`);
  }
  const parsed = PackJsonSchema.safeParse(json);
  if (!parsed.success) return fail('invalid-data', `npm pack's report: ${formatIssues(parsed.error.issues)}`);
  const entry = parsed.data[0] as z.infer<typeof PackJsonSchema>[number];
  return ok({
    file: path.join(workDir, path.basename(entry.filename)),
    name: entry.name,
    version: entry.version,
    size: entry.size,
    unpackedSize: entry.unpackedSize,
    files: entry.files.map((f) => ({ path: f.path, size: f.size })),
  });
}
