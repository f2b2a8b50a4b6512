// Loads the registry index `search` reads: the bundled default (registry/index.json, listing our
// own packs) or one given as a file path or an https URL. Whatever the source, the JSON is parsed
// from `unknown` with the shared schema; search itself is the pure function in shared/.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RegistryIndexSchema, type RegistryIndex } from '../../shared/protocol/registry-index.ts';
import { parseWith } from '../../shared/protocol/parse.ts';
import { fail, type Result } from '../../shared/protocol/result.ts';
import { assetPath } from '../platform/assets.ts';

export const BUNDLED_INDEX = assetPath('registry-index');

export async function loadRegistryIndex(source: string = BUNDLED_INDEX, cwd: string = process.cwd()): Promise<Result<RegistryIndex>> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    if (!/^https:\/\//i.test(source) && !/^http:\/\/(?:127\.0\.0\.1|localhost)[:/]/i.test(source)) {
      return fail('usage', 'A registry index URL must use https.');
    }
    try {
      const response = await fetch(source);
      if (!response.ok) return fail('registry-unreachable', `The registry index ${source} answered HTTP ${response.status}.`);
      text = await response.text();
    } catch (error) {
      return fail('registry-unreachable', `The registry index ${source} could not be fetched: ${(error as Error).message}`);
    }
  } else {
    const file = path.resolve(cwd, source);
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return fail('root-unreadable', `The registry index ${file} could not be read: ${(error as Error).message}`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('invalid-data', `${source}: not valid JSON`);
  }
  return parseWith(RegistryIndexSchema, json, source);
}
