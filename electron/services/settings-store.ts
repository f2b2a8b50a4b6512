// The user's settings for one data directory: the registry packs come from and the agent session
// allowlist (spec: CodeAct mounts only session-allowed packs). One JSON file, read through the
// contract's own schema so the file and the wire can never disagree about what is valid.

import path from 'node:path';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { SettingsSchema, type Settings } from '../../shared/contract/schemas.ts';
import { readJsonFile, writeJsonFileAtomic } from './json-file.ts';

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';
export const SETTINGS_FILE = 'settings.json';

export interface SettingsStore {
  get(): Promise<Result<Settings>>;
  update(change: Partial<Settings>): Promise<Result<Settings>>;
}

export function createSettingsStore(dataDir: string, defaults: Partial<Settings> = {}): SettingsStore {
  const file = path.join(dataDir, SETTINGS_FILE);
  const fallback: Settings = { registry: defaults.registry ?? DEFAULT_REGISTRY, sessionAllowlist: defaults.sessionAllowlist ?? [] };
  // Serialize writers so two quick updates cannot lose one another's change.
  let queue: Promise<unknown> = Promise.resolve();

  async function get(): Promise<Result<Settings>> {
    const read = await readJsonFile(file, SettingsSchema);
    if (!read.ok) return fail('invalid-data', `${read.message} (fix or delete ${SETTINGS_FILE} in the data directory)`);
    return ok(read.value ?? fallback);
  }

  return {
    get,
    update(change) {
      const next = queue.then(async (): Promise<Result<Settings>> => {
        const current = await get();
        if (!current.ok) return current;
        const merged: Settings = { ...current.value, ...change };
        await writeJsonFileAtomic(file, merged);
        return ok(merged);
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
