import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { trustCovers, type PackRecord } from '../../shared/protocol/ledger.ts';
import { activePackNames } from './active-packs.ts';
import { LEDGER_FILE, emptyLedger, readLedger, writeLedger } from './ledger-store.ts';

const roots: string[] = [];
const tempRoot = () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sp-ledger-'));
  roots.push(root);
  return root;
};
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const INTEGRITY = `sha512-${'A'.repeat(86)}==`;
const record: PackRecord = {
  name: '@acme/pack',
  version: '1.0.0',
  spec: '@acme/pack',
  resolved: 'https://registry.example/@acme/pack/-/pack-1.0.0.tgz',
  integrity: INTEGRITY,
  installMode: 'register',
  installedAt: '2026-01-01T00:00:00.000Z',
  source: 'registry',
  sourceLabel: 'registry',
  scripts: [],
  closure: [{ name: '@acme/pack', version: '1.0.0', path: 'node_modules/@acme/pack', hasInstallScript: false, treeDigest: '0'.repeat(64) }],
  trust: null,
  status: 'needs-trust',
};

describe('ledger store', () => {
  it('round-trips a ledger and leaves no temp file behind', async () => {
    const root = tempRoot();
    expect(await readLedger(root)).toEqual({ ok: true, value: undefined });
    const ledger = { ...emptyLedger('https://registry.example/'), packs: { [record.name]: record } };
    await writeLedger(root, ledger);
    expect(await readLedger(root)).toEqual({ ok: true, value: ledger });
    expect(readdirSync(root)).toEqual([LEDGER_FILE]);
  });

  it('reports a damaged ledger by key path, and a damaged ledger activates nothing', async () => {
    const root = tempRoot();
    writeFileSync(
      path.join(root, LEDGER_FILE),
      JSON.stringify({ format: 1, registry: 'https://r.example/', packs: { '@acme/pack': { ...record, status: 'trusted-by-me' } } }),
    );
    const read = await readLedger(root);
    expect(read).toMatchObject({ ok: false, code: 'invalid-data' });
    if (!read.ok) expect(read.message).toContain('packs.@acme/pack.status:');
    expect(await activePackNames(root)).toEqual(new Set());
    writeFileSync(path.join(root, LEDGER_FILE), '{ not json');
    expect(await readLedger(root)).toEqual({
      ok: false,
      code: 'invalid-data',
      message: `${path.join(root, LEDGER_FILE)}: not valid JSON (cut short or overwritten). The install ledger is damaged; the next install, update or uninstall (or the app's next start) repairs it from its backup.`,
    });
  });

  it('refuses to write a record filed under another name', async () => {
    const root = tempRoot();
    await expect(writeLedger(root, { ...emptyLedger('https://r.example/'), packs: { 'other-name': record } })).rejects.toThrow(
      'every pack record is filed under its own name',
    );
  });

  it('consent covers only the exact artifact', () => {
    const trusted = { ...record, trust: { name: record.name, version: '1.0.0', integrity: INTEGRITY, at: '2026-01-01T00:00:00.000Z' } };
    expect(trustCovers(trusted)).toBe(true);
    expect(trustCovers({ ...trusted, version: '1.0.1' })).toBe(false);
    expect(trustCovers({ ...trusted, integrity: `sha512-${'B'.repeat(86)}==` })).toBe(false);
    expect(trustCovers(record)).toBe(false);
  });
});
