// Issue 18, "trust state that is always true", through the real app services: a real Verdaccio,
// npm 11, the real installer and catalog. A 404 names the registry; a failed trust keeps npm's own
// lines (the cause, not a summary cut before it) in the ledger, so every view shows it; a stale
// dialog (one that reviewed another version or artifact) is refused with nothing run; the update
// check reads the configured registry and names what the newer manifest removes.

import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createAppServices, type AppServices } from './app-services.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const LOUD = '@sp-fixture/register-failing-loud';
const EVOLVING = '@sp-fixture/evolving';
const SHRINKING = '@sp-fixture/shrinking';

vi.setConfig({ testTimeout: 180_000 });

let registry: TestRegistry;
let services: AppServices;
let dataDir: string;

const call = (method: string, payload: unknown) => services.dispatcher.handle(method, payload, { face: 'test' });
type Row = {
  name: string;
  version: string;
  status: string;
  trusted: boolean;
  integrity: string;
  installMode?: string;
  useDecision?: string;
  description?: string;
  setupFailure?: { code: string; message: string };
};
async function row(name: string): Promise<Row | undefined> {
  const listed = await call('packs.list', {});
  if (!listed.ok) throw new Error(listed.message);
  return (listed.value as { packs: Row[] }).packs.find((p) => p.name === name);
}

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const dir of ['register-failing-loud-1.0.0', 'evolving-1.0.0', 'evolving-2.0.0', 'shrinking-1.0.0', 'shrinking-2.0.0'])
    await registry.publish(path.join(FIXTURES, dir));
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-trust-state-'));
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

afterEach(() => {
  // No test leaves an install root lock behind.
  expect(readdirSync(dataDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
});

describe('trust state through the app services', () => {
  it('a 404 on install says the package does not exist on that registry, naming it', async () => {
    const result = await call('packs.install', { spec: '@sp-fixture/no-such-pack' });
    expect(result).toEqual({
      ok: false,
      code: 'not-found',
      message: `The package @sp-fixture/no-such-pack does not exist on the registry ${registry.url} (npm answered 404 Not Found while installing @sp-fixture/no-such-pack). Check the name, or the registry in Agent & settings.`,
    });
  });

  it("a failed trust is recorded with npm's own lines, the cause included, and shown by packs.list", async () => {
    expect(await call('packs.install', { spec: LOUD })).toMatchObject({
      ok: true,
      value: {
        status: 'needs-trust',
        description: 'Fixture: a register pack whose postinstall prints its cause on stderr and fails; the user must see that line.',
      },
    });
    const result = await call('packs.trust', { name: LOUD });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('rebuild-failed');
    const lines = result.message.split('\n');
    expect(lines[0]).toBe(`The install scripts of ${LOUD}@1.0.0 failed. npm said:`);
    // The script's own stderr, in order, up to and including the cause.
    const first = lines.indexOf('setup step 1 of 5');
    const cause = lines.indexOf('fatal: could not find the Python 3 interpreter the build needs (set PYTHON)');
    expect(first).toBeGreaterThan(0);
    expect(cause).toBeGreaterThan(first);
    const listed = await row(LOUD);
    expect(listed).toMatchObject({ status: 'needs-rebuild', trusted: true, setupFailure: { code: 'rebuild-failed', message: result.message } });
  });

  it('a stale dialog is refused with pack-changed and nothing runs; the reviewed artifact is trusted', async () => {
    expect(await call('packs.install', { spec: `${EVOLVING}@2.0.0` })).toMatchObject({ ok: true, value: { status: 'needs-trust' } });
    const current = (await row(EVOLVING))!;
    const older = await call('packs.trust', { name: EVOLVING, reviewed: { version: '1.0.0', integrity: current.integrity } });
    expect(older).toEqual({
      ok: false,
      code: 'pack-changed',
      message: `You reviewed ${EVOLVING}@1.0.0, but ${EVOLVING} is now at 2.0.0; nothing was run. Open the dialog again to review what is installed now.`,
    });
    const otherBytes = await call('packs.trust', { name: EVOLVING, reviewed: { version: '2.0.0', integrity: 'sha512-AAAA' } });
    expect(otherBytes).toMatchObject({
      ok: false,
      code: 'pack-changed',
      message: `You reviewed ${EVOLVING}@2.0.0, but ${EVOLVING}@2.0.0 is now a different artifact; nothing was run. Open the dialog again to review what is installed now.`,
    });
    expect(await row(EVOLVING)).toMatchObject({ status: 'needs-trust', trusted: false });
    const trusted = await call('packs.trust', { name: EVOLVING, reviewed: { version: '2.0.0', integrity: current.integrity } });
    expect(trusted).toMatchObject({ ok: true, value: { status: 'active', trusted: true } });
    expect((await row(EVOLVING))?.setupFailure).toBeUndefined();
  });

  it("the trust plan names the register entry and the registry's publish date", async () => {
    const plan = await call('packs.trustDryRun', { name: LOUD });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    const value = plan.value as { register?: string; publishedAt?: string; scripts: { command: string }[] };
    expect(value.register).toBe('register.js');
    expect(value.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(value.scripts.map((s) => s.command)).toEqual(['node fail.cjs']);
  });

  it('the update check reads the configured registry: update, target, removed modules; current; tarball', async () => {
    expect(await call('packs.install', { spec: `${SHRINKING}@1.0.0` })).toMatchObject({ ok: true, value: { status: 'active' } });
    const checked = await call('packs.updates', {});
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    const value = checked.value as {
      registry: string;
      packs: { name: string; state: string; latest?: string; publishedAt?: string; removedModules: string[] }[];
    };
    expect(value.registry).toBe(registry.url);
    const by = new Map(value.packs.map((p) => [p.name, p]));
    expect(by.get(SHRINKING)).toMatchObject({
      state: 'update',
      installed: '1.0.0',
      latest: '2.0.0',
      removedModules: [`${SHRINKING}/extra`],
      removedExports: [],
    });
    expect(by.get(SHRINKING)?.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(by.get(EVOLVING)).toMatchObject({ state: 'current', latest: '2.0.0', removedModules: [] });
    expect(by.get(LOUD)).toMatchObject({ state: 'current' });
  });

  it('trust for agents is a decision of its own: recorded without running anything, kept across an update', async () => {
    expect(await call('packs.decideUse', { name: 'not-here', trusted: true })).toEqual({
      ok: false,
      code: 'not-installed',
      message: 'No pack named not-here is installed.',
    });
    expect(await row(SHRINKING)).toMatchObject({ installMode: 'sandbox-only', trusted: false });
    expect((await row(SHRINKING))?.useDecision).toBeUndefined();
    expect(await call('packs.decideUse', { name: SHRINKING, trusted: true })).toMatchObject({ ok: true, value: { useDecision: 'trusted', status: 'active' } });
    expect(await call('packs.decideUse', { name: SHRINKING, trusted: false })).toMatchObject({ ok: true, value: { useDecision: 'untrusted' } });
    expect(await call('packs.update', { name: SHRINKING, to: '2.0.0' })).toMatchObject({ ok: true, value: { version: '2.0.0', useDecision: 'untrusted' } });
  });

  it('a registry that cannot be reached makes each registry pack "unavailable" with the reason, never "current"', async () => {
    const set = await call('settings.setRegistry', { registry: 'http://127.0.0.1:9/' });
    expect(set.ok).toBe(true);
    try {
      const checked = await call('packs.updates', {});
      expect(checked.ok).toBe(true);
      if (!checked.ok) return;
      const shrinking = (checked.value as { packs: { name: string; state: string; message?: string }[] }).packs.find((p) => p.name === SHRINKING);
      expect(shrinking?.state).toBe('unavailable');
      expect(shrinking?.message).toMatch(/^The registry http:\/\/127\.0\.0\.1:9\/ could not be reached for @sp-fixture\/shrinking: /);
    } finally {
      await call('settings.setRegistry', { registry: registry.url });
    }
  });
});
