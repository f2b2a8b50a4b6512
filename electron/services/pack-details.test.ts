// packs.details' kernel against real pack folders and the real catalog (no compiler needed: the
// fixtures' modules are plain files): a pack the catalog does not serve is read from its files, a
// host-code pack still shows its SKILL.md, an active pack answers from the catalog.

import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { PackRecord } from '../../shared/protocol/ledger.ts';
import { openCatalog } from '../catalog/catalog.ts';
import { packDetails } from './pack-details.ts';
import { trustedForUse } from './pack-handlers.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function record(name: string, installMode: PackRecord['installMode'], status: PackRecord['status']): PackRecord {
  return {
    name,
    version: '1.0.0',
    spec: name,
    resolved: `http://127.0.0.1:9/${name}/-/x-1.0.0.tgz`,
    integrity: 'sha512-AAAA',
    installMode,
    installedAt: '2026-01-01T00:00:00.000Z',
    source: 'registry',
    sourceLabel: 'registry',
    scripts: [],
    closure: [{ path: `node_modules/${name}`, name, version: '1.0.0', hasInstallScript: false, treeDigest: '0'.repeat(64) }],
    trust: null,
    status,
  };
}

async function root(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-details-'));
  dirs.push(dir);
  await cp(path.join(FIXTURES, 'documented-hybrid-1.0.0'), path.join(dir, 'node_modules/@sp-fixture/documented-hybrid'), { recursive: true });
  await cp(path.join(FIXTURES, 'shrinking-1.0.0'), path.join(dir, 'node_modules/@sp-fixture/shrinking'), { recursive: true });
  const host = path.join(dir, 'node_modules/@sp-fixture/host-only');
  await mkdir(host, { recursive: true });
  await writeFile(
    path.join(host, 'package.json'),
    JSON.stringify({ name: '@sp-fixture/host-only', version: '1.0.0', main: 'r.js', nodetool: { apiVersion: 1, register: 'r.js' } }),
  );
  await writeFile(path.join(host, 'SKILL.md'), '---\nname: host-only\ndescription: Host code.\n---\n\nBody.\n');
  return dir;
}

describe('packs.details', () => {
  it('reads the modules, exports and SKILL.md of a pack waiting for trust from its files', async () => {
    const dir = await root();
    const catalog = await openCatalog({ root: dir, onlyPacks: new Set(['@sp-fixture/shrinking']) });
    if (!catalog.ok) throw new Error(catalog.message);
    const details = await packDetails(
      dir,
      catalog.value,
      record('@sp-fixture/documented-hybrid', 'hybrid', 'needs-trust'),
      trustedForUse(record('@sp-fixture/documented-hybrid', 'hybrid', 'needs-trust')),
    );
    expect(details.from).toBe('files');
    expect(details.modules.map((m) => [m.specifier, m.status, m.exports])).toEqual([
      ['@sp-fixture/documented-hybrid', 'ready', ['greet', 'greeting']],
      ['@sp-fixture/documented-hybrid/text', 'ready', ['default', 'shout']],
    ]);
    expect(details.skill).toMatchObject({ skillName: 'documented-hybrid', trusted: false, packVersion: '1.0.0' });
    expect(details.skill?.markdown).toContain('greet("Ada")');
    // Examining it changed nothing the catalog serves.
    expect(catalog.value.summaries().some((m) => m.packName === '@sp-fixture/documented-hybrid')).toBe(false);
  });

  it('shows the SKILL.md of a host-code pack, which has no sandbox modules', async () => {
    const dir = await root();
    const catalog = await openCatalog({ root: dir, onlyPacks: new Set() });
    if (!catalog.ok) throw new Error(catalog.message);
    const details = await packDetails(
      dir,
      catalog.value,
      record('@sp-fixture/host-only', 'register', 'needs-trust'),
      trustedForUse(record('@sp-fixture/host-only', 'register', 'needs-trust')),
    );
    expect(details).toMatchObject({ from: 'files', modules: [], skill: { skillName: 'host-only', markdown: '\nBody.\n' } });
  });

  it('answers an active pack from the catalog, and says why there is no SKILL.md', async () => {
    const dir = await root();
    const catalog = await openCatalog({ root: dir, onlyPacks: new Set(['@sp-fixture/shrinking']) });
    if (!catalog.ok) throw new Error(catalog.message);
    const details = await packDetails(
      dir,
      catalog.value,
      record('@sp-fixture/shrinking', 'sandbox-only', 'active'),
      trustedForUse(record('@sp-fixture/shrinking', 'sandbox-only', 'active')),
    );
    expect(details.from).toBe('catalog');
    expect(details.modules.map((m) => m.specifier)).toEqual(['@sp-fixture/shrinking', '@sp-fixture/shrinking/extra']);
    expect(details.skill).toBeUndefined();
    expect(details.skillProblem).toBe('SKILL.md is missing; agents get no documentation for this pack.');
  });
});
