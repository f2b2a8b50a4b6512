// Small JSON files the services own (settings, saved workflows): read back through zod like any
// other boundary, written atomically (temp file + rename in the same directory) so a crash never
// leaves a half-written file that would then fail to parse.

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { parseWith } from '../../shared/protocol/parse.ts';
import type { Result } from '../../shared/protocol/result.ts';

/** The file's parsed content, `undefined` when it does not exist, `invalid-data` when it is damaged. */
export async function readJsonFile<S extends z.ZodType>(file: string, schema: S): Promise<Result<z.output<S> | undefined, 'invalid-data'>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, value: undefined };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, code: 'invalid-data', message: `${path.basename(file)}: (root): not valid JSON` };
  }
  return parseWith(schema, json, path.basename(file));
}

export async function writeJsonFileAtomic(file: string, value: unknown): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { flag: 'wx' });
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
}
