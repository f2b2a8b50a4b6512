// The user's settings for one data directory: the registry packs come from and the agent session
// allowlist (spec: CodeAct mounts only session-allowed packs). One JSON file, read through the
// contract's own schema so the file and the wire can never disagree about what is valid, written
// durably with its previous generation kept as a backup. A damaged file is repaired when read
// (from the backup; a garbled one without a backup is set aside for the defaults) and
// `onRepaired` is told what was done; a full disk is a `disk-full` answer, the file as it was.

import path from 'node:path';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { SettingsSchema, type Settings } from '../../shared/contract/schemas.ts';
import { isDiskFull } from '../platform/durable-file.ts';
import { readJsonFileRepairing, writeJsonFileAtomic } from './json-file.ts';

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';
export const SETTINGS_FILE = 'settings.json';

export interface SettingsStore {
  get(): Promise<Result<Settings>>;
  update(change: Partial<Settings>): Promise<Result<Settings>>;
}

export interface SettingsStoreOptions {
  /** Told, in a sentence, about each repair of a damaged settings file. */
  readonly onRepaired?: (sentence: string) => void;
}

export function createSettingsStore(dataDir: string, defaults: Partial<Settings> = {}, options: SettingsStoreOptions = {}): SettingsStore {
  const file = path.join(dataDir, SETTINGS_FILE);
  const fallback: Settings = { registry: defaults.registry ?? DEFAULT_REGISTRY, sessionAllowlist: defaults.sessionAllowlist ?? [] };
  // Serialize writers so two quick updates cannot lose one another's change.
  let queue: Promise<unknown> = Promise.resolve();

  async function get(): Promise<Result<Settings>> {
    const read = await readJsonFileRepairing(file, SettingsSchema, 'The settings file', 'the default settings are used until you change them');
    if (read.repaired) options.onRepaired?.(read.repaired);
    if (read.invalid) return fail('invalid-data', `${read.invalid} (fix or delete ${SETTINGS_FILE} in the data directory)`);
    return ok(read.value ?? fallback);
  }

  return {
    get,
    update(change) {
      const next = queue.then(async (): Promise<Result<Settings>> => {
        const current = await get();
        if (!current.ok) return current;
        const merged: Settings = { ...current.value, ...change };
        try {
          await writeJsonFileAtomic(file, merged, SettingsSchema);
        } catch (error) {
          if (!isDiskFull(error)) throw error;
          return fail(
            'disk-full',
            `The disk holding the data directory is full, so the settings could not be saved; they are as they were. Free some space, then try again.`,
          );
        }
        return ok(merged);
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
