// A registry that accepts connections and never answers (electron/testing/silent-registry.ts, a
// real TCP server, and the real npm): an install gives up with `registry-unreachable` after the
// bounded fetch timeout instead of npm's 5 minutes per try, and a Cancel stops npm at once and
// leaves the root exactly as it was — the pack installed before still recorded and active,
// nothing new in package.json, the lockfile or node_modules, no journal, the lock released.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSilentRegistry, type SilentRegistry } from '../testing/silent-registry.ts';
import { createInstaller } from './installer.ts';
import { journalPath } from './journal.ts';
import { runNpm } from './npm-runner.ts';
import type { ProgressEvent } from './root-ops.ts';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const EVOLVING = path.join(REPO, 'fixtures/registry-packs/evolving-1.0.0');

let silent: SilentRegistry;
let tarballs: string;
let tgz: string;
const roots: string[] = [];

beforeAll(async () => {
  silent = await startSilentRegistry();
  tarballs = mkdtempSync(path.join(os.tmpdir(), 'sp-hang-tgz-'));
  const packed = await runNpm(['pack', EVOLVING, '--pack-destination', tarballs, '--ignore-scripts'], { cwd: tarballs });
  expect(packed.code).toBe(0);
  tgz = path.join(tarballs, 'sp-fixture-evolving-1.0.0.tgz');
});

afterAll(async () => {
  await silent?.close();
  for (const dir of [...roots, tarballs]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A root holding one pack installed from a local tarball (no registry needed), pointed at the silent registry. */
async function rootWithOnePack(fetchTimeoutMs?: number) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sp-hang-root-'));
  roots.push(root);
  const installer = createInstaller({ root, registry: silent.url, ...(fetchTimeoutMs !== undefined ? { fetchTimeoutMs } : {}) });
  const first = await installer.install(tgz);
  expect(first).toMatchObject({ ok: true, value: { name: '@sp-fixture/evolving', status: 'active' } });
  return { root, installer, state: () => rootState(root) };
}

function rootState(root: string) {
  const read = (file: string) => (existsSync(path.join(root, file)) ? readFileSync(path.join(root, file), 'utf8') : null);
  const ledger = JSON.parse(read('sandbox-packs-ledger.json') ?? '{}') as { packs?: Record<string, { version: string; status: string }> };
  return {
    packageJson: read('package.json'),
    lockfile: read('package-lock.json'),
    modules: readdirSync(path.join(root, 'node_modules')).filter((name) => !name.startsWith('.')),
    packs: Object.fromEntries(Object.entries(ledger.packs ?? {}).map(([name, p]) => [name, `${p.version} ${p.status}`])),
  };
}

describe('an install from a registry that never answers', () => {
  it('gives up with registry-unreachable after the bounded fetch timeout, changing nothing', async () => {
    const { root, installer, state } = await rootWithOnePack(1500);
    const before = state();
    const seen = silent.connections();
    const started = Date.now();
    const result = await installer.install('@sp-fixture/never-answers');
    const elapsed = Date.now() - started;
    expect(result.ok ? 'installed' : result.code).toBe('registry-unreachable');
    expect(result.ok ? '' : result.message).toMatch(/^The package registry could not be reached while installing @sp-fixture\/never-answers; /);
    expect(silent.connections()).toBeGreaterThan(seen);
    // Two tries of 1.5 s and a retry pause of 2 s to 5 s, plus npm's start-up: far from npm's 2 × 5 minutes.
    expect(elapsed).toBeLessThan(30_000);
    expect(state()).toEqual(before);
    expect(existsSync(journalPath(root))).toBe(false);
  }, 90_000);

  it('Cancel stops npm at once; the pack installed before is intact and nothing new is left', async () => {
    const { root, installer, state } = await rootWithOnePack();
    const before = state();
    const controller = new AbortController();
    const stages: ProgressEvent[] = [];
    const seen = silent.connections();
    const running = installer.install('@sp-fixture/never-answers', { onProgress: (event) => stages.push(event), signal: controller.signal });
    // npm is really waiting on the registry (default timeout: it would wait 30 s per try).
    await silent.waitForConnections(seen + 1);
    const cancelledAt = Date.now();
    controller.abort();
    const result = await running;
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
    expect(result).toEqual({
      ok: false,
      code: 'install-cancelled',
      message: 'Stopped installing @sp-fixture/never-answers at your request. Nothing was installed; the packs are as they were.',
    });
    expect(stages.map((s) => s.stage)).toEqual(['resolving', 'fetching']);
    expect(state()).toEqual(before);
    expect(before.packs).toEqual({ '@sp-fixture/evolving': '1.0.0 active' });
    expect(existsSync(journalPath(root))).toBe(false);
    // The lock is released: the next operation runs at once.
    expect((await installer.uninstall('@sp-fixture/evolving')).ok).toBe(true);
  }, 90_000);
});
