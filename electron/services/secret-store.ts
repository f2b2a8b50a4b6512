// The user's secrets (name → value) that Code nodes are granted by name. One interface, two
// storages: an owner-only file (the CLI and the web host: mode 0600 in a 0700 folder, written
// atomically) and the desktop app's, whose values are sealed with Electron's safeStorage (the OS
// keychain) before they reach the same kind of file (electron/main/safe-storage-secrets.ts).
// Invariants: a value leaves this module only through `values()` (the host side of a run), never
// through `list()`; a damaged file is reported with a sentence and never overwritten, so nothing
// the user stored is lost by a later save.

import { chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { SecretNameSchema } from '../../shared/contract/secret-schemas.ts';
import { isDiskFull, writeFileDurably } from '../platform/durable-file.ts';

export const SECRETS_DIR = 'secrets';

/** How a storage keeps a value at rest: as it is (the owner-only file) or sealed (safeStorage). */
export interface SecretSealer {
  /** Shown to the user: where the values live and how they are protected. */
  readonly storage: 'owner-only-file' | 'os-keychain';
  /** The file name under <data dir>/secrets/ (each storage its own, so one never misreads the other). */
  readonly fileName: string;
  seal(value: string): string;
  unseal(sealed: string): string;
}

export interface SecretStore {
  readonly storage: SecretSealer['storage'];
  /** The stored names (sorted), never their values. */
  list(): Promise<Result<string[]>>;
  set(name: string, value: string): Promise<Result<string>>;
  /** False when no secret had that name. */
  delete(name: string): Promise<Result<boolean>>;
  /** The values of these names, for a run's host side; a name without a value maps to undefined. */
  values(names: readonly string[]): Promise<Result<Record<string, string | undefined>>>;
}

const SecretFileSchema = z
  .object({
    version: z.literal(1),
    secrets: z.record(SecretNameSchema, z.string().max(1_000_000)),
  })
  .strict();
type SecretFile = z.infer<typeof SecretFileSchema>;

/** Values stored as they are, protected by the file's owner-only mode. */
export const PLAIN_FILE_SEALER: SecretSealer = {
  storage: 'owner-only-file',
  fileName: 'secrets.json',
  seal: (value) => value,
  unseal: (sealed) => sealed,
};

export function createFileSecretStore(dataDir: string, sealer: SecretSealer = PLAIN_FILE_SEALER): SecretStore {
  const dir = path.join(dataDir, SECRETS_DIR);
  const file = path.join(dir, sealer.fileName);
  const shown = path.join(SECRETS_DIR, sealer.fileName);
  // Serialize writers so two quick saves cannot lose one another's change.
  let queue: Promise<unknown> = Promise.resolve();

  async function read(): Promise<Result<SecretFile>> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok({ version: 1, secrets: {} });
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return damaged('it is not valid JSON');
    }
    const parsed = SecretFileSchema.safeParse(json);
    return parsed.success ? ok(parsed.data) : damaged(formatIssues(parsed.error.issues));
  }

  function damaged(reason: string): Result<never> {
    return fail(
      'invalid-data',
      `The secrets file ${shown} in the data directory is damaged (${reason}), so no secret can be read or saved until it is fixed. It was left as it is, so nothing in it is lost: repair it by hand, or move it away to start with no secrets.`,
    );
  }

  function change(apply: (current: SecretFile) => SecretFile | undefined): Promise<Result<SecretFile>> {
    const next = queue.then(async (): Promise<Result<SecretFile>> => {
      const current = await read();
      if (!current.ok) return current;
      const changed = apply(current.value);
      if (!changed) return current;
      try {
        await writeOwnerOnly(dir, file, `${JSON.stringify(changed, null, 2)}\n`);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        return fail('disk-full', 'The disk holding the data directory is full, so the secret could not be saved; the stored secrets are as they were.');
      }
      return ok(changed);
    });
    queue = next.catch(() => undefined);
    return next;
  }

  return {
    storage: sealer.storage,
    async list() {
      const current = await read();
      return current.ok ? ok(Object.keys(current.value.secrets).sort((a, b) => a.localeCompare(b))) : current;
    },
    async set(name, value) {
      let sealed: string;
      try {
        sealed = sealer.seal(value);
      } catch {
        return fail('internal', 'This system offers no way to encrypt secrets (its keychain is not available), so the secret was not saved.');
      }
      const saved = await change((current) => ({ version: 1, secrets: { ...current.secrets, [name]: sealed } }));
      return saved.ok ? ok(name) : saved;
    },
    async delete(name) {
      let found = false;
      const saved = await change((current) => {
        if (!Object.hasOwn(current.secrets, name)) return undefined;
        found = true;
        const { [name]: _gone, ...rest } = current.secrets;
        return { version: 1, secrets: rest };
      });
      return saved.ok ? ok(found) : saved;
    },
    async values(names) {
      const current = await read();
      if (!current.ok) return current;
      const out: Record<string, string | undefined> = {};
      for (const name of names) {
        const sealed = Object.hasOwn(current.value.secrets, name) ? current.value.secrets[name] : undefined;
        if (sealed === undefined) out[name] = undefined;
        else {
          try {
            out[name] = sealer.unseal(sealed);
          } catch {
            return fail('invalid-data', `The secret "${name}" could not be unsealed on this machine; set it again on the Secrets screen.`);
          }
        }
      }
      return ok(out);
    },
  };
}

/** Only its owner may read the file: the folder is 0700 (set even when it existed), the file 0600, written durably. */
async function writeOwnerOnly(dir: string, file: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  await writeFileDurably(file, text, { mode: 0o600 });
}
