// The owner-only secret file the CLI and the web host keep (secret-store.ts), on the real file
// system: mode 0600 in a 0700 folder, atomic replace (no temp file left), names without values,
// a damaged file reported and left untouched, and a sealer's values never written in clear.

import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, type TempDir } from '../testing/test-support.ts';
import { createFileSecretStore, SECRETS_DIR, type SecretSealer } from './secret-store.ts';

const dirs: TempDir[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});
async function dataDir(): Promise<string> {
  const dir = await tempDir('sp-secrets-');
  dirs.push(dir);
  return dir.path;
}
const unwrap = <T>(result: { ok: true; value: T } | { ok: false; message: string }): T => {
  if (!result.ok) throw new Error(result.message);
  return result.value;
};

describe('file secret store', () => {
  it('stores values in a 0600 file in a 0700 folder, lists names only, and replaces atomically', async () => {
    const root = await dataDir();
    const store = createFileSecretStore(root);
    expect(unwrap(await store.list())).toEqual([]);
    unwrap(await store.set('API_TOKEN', 's3cret-value'));
    unwrap(await store.set('OTHER', 'x'));
    unwrap(await store.set('API_TOKEN', 'replaced'));
    const file = path.join(root, SECRETS_DIR, 'secrets.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(root, SECRETS_DIR))).mode & 0o777).toBe(0o700);
    expect(await readdir(path.join(root, SECRETS_DIR))).toEqual(['secrets.json']);
    expect(unwrap(await store.list())).toEqual(['API_TOKEN', 'OTHER']);
    expect(JSON.stringify(await store.list())).not.toContain('replaced');
    expect(unwrap(await store.values(['API_TOKEN', 'MISSING']))).toEqual({ API_TOKEN: 'replaced', MISSING: undefined });
    expect(unwrap(await store.delete('OTHER'))).toBe(true);
    expect(unwrap(await store.delete('OTHER'))).toBe(false);
    expect(unwrap(await store.list())).toEqual(['API_TOKEN']);
  });

  it('tightens a folder and file left with wider modes on the next save', async () => {
    const root = await dataDir();
    await mkdir(path.join(root, SECRETS_DIR), { mode: 0o755 });
    await writeFile(path.join(root, SECRETS_DIR, 'secrets.json'), '{"version":1,"secrets":{"A":"1"}}', { mode: 0o644 });
    await chmod(path.join(root, SECRETS_DIR), 0o755);
    const store = createFileSecretStore(root);
    unwrap(await store.set('B', '2'));
    expect((await stat(path.join(root, SECRETS_DIR))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(root, SECRETS_DIR, 'secrets.json'))).mode & 0o777).toBe(0o600);
    expect(unwrap(await store.values(['A', 'B']))).toEqual({ A: '1', B: '2' });
  });

  it('reports a damaged file with a sentence and never overwrites it', async () => {
    const root = await dataDir();
    await mkdir(path.join(root, SECRETS_DIR));
    const file = path.join(root, SECRETS_DIR, 'secrets.json');
    await writeFile(file, '{"version":1,"secrets":{"API_TOKEN":"keep-me"');
    const store = createFileSecretStore(root);
    const listed = await store.list();
    expect(listed).toEqual({
      ok: false,
      code: 'invalid-data',
      message:
        'The secrets file secrets/secrets.json in the data directory is damaged (it is not valid JSON), so no secret can be read or saved until it is fixed. It was left as it is, so nothing in it is lost: repair it by hand, or move it away to start with no secrets.',
    });
    const saved = await store.set('NEW', 'v');
    expect(saved.ok).toBe(false);
    expect(await store.values(['API_TOKEN'])).toMatchObject({ ok: false, code: 'invalid-data' });
    expect(await readFile(file, 'utf8')).toBe('{"version":1,"secrets":{"API_TOKEN":"keep-me"');

    await writeFile(file, '{"version":1,"secrets":{"bad name":"x"}}');
    expect(await store.list()).toMatchObject({ ok: false, code: 'invalid-data' });
  });

  it('serializes concurrent saves so none is lost', async () => {
    const root = await dataDir();
    const store = createFileSecretStore(root);
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.set(`S${i}`, String(i))));
    expect(unwrap(await store.list())).toHaveLength(10);
  });

  it('writes only sealed values when given a sealer, and refuses to save when sealing is unavailable', async () => {
    const root = await dataDir();
    const sealer: SecretSealer = {
      storage: 'os-keychain',
      fileName: 'secrets.sealed.json',
      seal: (value) => Buffer.from(value).reverse().toString('base64'),
      unseal: (sealed) => Buffer.from(sealed, 'base64').reverse().toString(),
    };
    const store = createFileSecretStore(root, sealer);
    unwrap(await store.set('API_TOKEN', 'plain-text-value'));
    const text = await readFile(path.join(root, SECRETS_DIR, 'secrets.sealed.json'), 'utf8');
    expect(text).not.toContain('plain-text-value');
    expect(unwrap(await store.values(['API_TOKEN']))).toEqual({ API_TOKEN: 'plain-text-value' });
    expect(existsSync(path.join(root, SECRETS_DIR, 'secrets.json'))).toBe(false);

    const broken = createFileSecretStore(root, {
      ...sealer,
      seal: () => {
        throw new Error('no keychain');
      },
    });
    expect(await broken.set('B', 'v')).toMatchObject({ ok: false, code: 'internal' });
    expect(unwrap(await broken.list())).toEqual(['API_TOKEN']);
  });
});
