// Issue 27: a worker keeps images of evaluated module sets, keyed by each module's id and digest.
// Through the real app services (a real Verdaccio, npm, the installer, the catalog and the worker
// pool): after an update, a catalog reload that finds changed bytes, an uninstall and a re-pin, no
// run is ever answered from an image of what the catalog no longer says. The fixture's module draws
// `Math.random` at initialisation, so a run can tell an image (the stamp it was taken with) from a
// fresh evaluation (a new stamp).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createAppServices, type AppServices } from './app-services.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const IMAGED = '@sp-fixture/imaged';
const SHRINKING = '@sp-fixture/shrinking';
const READ = `import { version, stamp } from "${IMAGED}"; return { version, stamp };`;

vi.setConfig({ testTimeout: 180_000 });

let registry: TestRegistry;
let services: AppServices;
let dataDir: string;

const call = (method: string, payload: unknown) => services.dispatcher.handle(method, payload, { face: 'test' });

type Seen = { version: string; stamp: number };
async function read(
  declaration: Record<string, unknown> = {},
): Promise<{ ok: true; seen: Seen; digest: string } | { ok: false; code: string; message: string }> {
  const answer = await call('code.run', { code: READ, packages: [{ specifier: IMAGED, ...declaration }] });
  if (!answer.ok) return { ok: false, code: answer.code, message: answer.message };
  const { result, resolved } = answer.value as { result: { ok: boolean; value?: Seen; code?: string; message?: string }; resolved: { digest: string }[] };
  if (!result.ok) return { ok: false, code: result.code ?? '', message: result.message ?? '' };
  return { ok: true, seen: result.value!, digest: resolved[0]!.digest };
}

/** Eight runs back to back: every worker of the pool (two) serves some, and keeps its image of the set. */
async function readMany(): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (let i = 0; i < 8; i++) {
    const one = await read();
    if (!one.ok) throw new Error(`${one.code}: ${one.message}`);
    seen.push(one.seen);
  }
  return seen;
}
const stamps = (seen: Seen[]) => new Set(seen.map((s) => s.stamp));

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const dir of ['imaged-1.0.0', 'imaged-2.0.0', 'shrinking-1.0.0']) await registry.publish(path.join(FIXTURES, dir));
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-image-freshness-'));
  const started = await createAppServices({ dataDir });
  if (!started.ok) throw new Error(started.message);
  services = started.value;
  const set = await call('settings.setRegistry', { registry: registry.url });
  if (!set.ok) throw new Error(set.message);
}, 240_000);

afterAll(async () => {
  await services?.dispose();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  await registry?.stop();
});

describe('module images never outlive what the catalog says', () => {
  let before: Seen[] = [];
  let firstDigest = '';

  it('serves runs of one set from images: eight runs see at most one stamp per worker', async () => {
    expect(await call('packs.install', { spec: `${IMAGED}@1.0.0` })).toMatchObject({ ok: true, value: { status: 'active' } });
    before = await readMany();
    expect(before.every((s) => s.version === '1.0.0')).toBe(true);
    // Evaluated afresh per run, eight runs would draw eight stamps.
    expect(stamps(before).size).toBeLessThanOrEqual(2);
    const one = await read();
    if (!one.ok) throw new Error(one.message);
    firstDigest = one.digest;
  });

  it('after an update every run sees the new version, evaluated from the new bytes', async () => {
    expect(await call('packs.update', { name: IMAGED })).toMatchObject({ ok: true, value: { version: '2.0.0' } });
    const after = await readMany();
    expect(after.map((s) => s.version)).toEqual(Array(8).fill('2.0.0'));
    for (const stamp of stamps(after)) expect(stamps(before).has(stamp)).toBe(false);
  });

  it('a node still pinned to the old version or digest runs what is installed, never the old image', async () => {
    // A pin that no longer matches is a warning of code.validate (validate-workflow.ts); the run
    // uses the installed pack and says which in `resolved`.
    for (const pin of [{ resolvedPackVersion: '1.0.0' }, { contentDigest: firstDigest }, { resolvedPackVersion: '2.0.0' }]) {
      const pinned = await read(pin);
      expect(pinned).toMatchObject({ ok: true, seen: { version: '2.0.0' } });
      if (pinned.ok) expect(pinned.digest).not.toBe(firstDigest);
    }
  });

  it('a catalog reload that finds other bytes at the same version is served from those bytes', async () => {
    const warm = await readMany();
    const file = path.join(dataDir, 'node_modules', ...IMAGED.split('/'), 'sandbox', 'index.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"2.0.0"', '"2.0.0-edited"'));
    // Installing another pack reloads the catalog (pack-handlers.ts), which reads the pack again.
    expect(await call('packs.install', { spec: `${SHRINKING}@1.0.0` })).toMatchObject({ ok: true });
    const after = await readMany();
    expect(after.map((s) => s.version)).toEqual(Array(8).fill('2.0.0-edited'));
    for (const stamp of stamps(after)) expect(stamps(warm).has(stamp)).toBe(false);
  });

  it('after an uninstall a run that imports the pack fails to resolve it, though workers still hold its image', async () => {
    expect(await call('packs.uninstall', { name: IMAGED })).toMatchObject({ ok: true });
    const gone = await read();
    expect(gone.ok).toBe(false);
    if (!gone.ok) expect(gone.message).toContain(IMAGED);
  });
});
