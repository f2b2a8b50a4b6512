// The installer against the real thing: npm 11 as a child process and a real Verdaccio holding
// the fixture packs. One registry for the whole file; every test gets a fresh install root.
// Markers: each fixture's lifecycle scripts write MARKER-* files into their package dir and npm's
// INIT_CWD (the root), so "no script ran" is checked on disk, not inferred.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LedgerSchema } from '../../shared/protocol/ledger.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { activePackNames } from './active-packs.ts';
import { createInstaller } from './installer.ts';
import { treeDigest } from './inspect.ts';
import { ledgerPath } from './ledger-store.ts';
import { runNpm } from './npm-runner.ts';
import { LOCK_DIR } from './root-lock.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const CLI = fileURLToPath(new URL('../../scripts/sandbox-packs.mjs', import.meta.url));
const fixture = (dir: string) => path.join(FIXTURES, dir);

// Several real npm runs per test on a shared 2-core machine: give each test room.
vi.setConfig({ testTimeout: 120_000 });

let registry: TestRegistry;
const roots: string[] = [];

function newRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sp-install-'));
  roots.push(root);
  return root;
}

/** Every MARKER-* file anywhere under root (package dirs and the root itself). */
function markers(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.npm-cache') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.startsWith('MARKER-')) found.push(path.relative(root, full));
    }
  };
  if (existsSync(root)) walk(root);
  return found.sort();
}

function ledgerOf(root: string) {
  return LedgerSchema.parse(JSON.parse(readFileSync(ledgerPath(root), 'utf8')));
}

function lockEntry(root: string, name: string): { resolved?: string; integrity?: string } | undefined {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { resolved?: string; integrity?: string }>;
  };
  return lock.packages[`node_modules/${name}`];
}

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  const dirs = [
    'sandbox-marker-1.0.0',
    'script-dep-1.0.0',
    'sandbox-with-dep-1.0.0',
    'register-pack-1.0.0',
    'not-a-pack-1.0.0',
    'evolving-1.0.0',
    'evolving-2.0.0',
    'gyp-pack-1.0.0',
    'register-failing-1.0.0',
  ];
  for (const dir of dirs) await registry.publish(fixture(dir));
  await registry.publish(fixture('evolving-3.0.0'), { tag: 'broken' });
}, 180_000);

afterAll(async () => {
  await registry?.stop();
});

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe('install (scripts never run)', () => {
  it('installs a sandbox-only pack active at once; its own install scripts never run, even with npm_config_* set against us', async () => {
    const root = newRoot();
    const saved = { ...process.env };
    // A hostile environment: npm reads these as config that outranks every npmrc.
    process.env.npm_config_ignore_scripts = 'false';
    process.env.npm_config_omit_lockfile_registry_resolved = 'true';
    process.env.npm_config_registry = 'http://127.0.0.1:9/';
    try {
      const stages: string[] = [];
      const result = await createInstaller({ root, registry: registry.url }).install('@sp-fixture/sandbox-marker', { onProgress: (e) => stages.push(e.stage) });
      expect(result).toMatchObject({
        ok: true,
        value: { name: '@sp-fixture/sandbox-marker', version: '1.0.0', installMode: 'sandbox-only', status: 'active', sourceLabel: 'registry' },
      });
      if (!result.ok) return;
      expect(result.value.scripts.map((s) => `${s.event}:${s.command}:${s.own}`)).toEqual([
        'preinstall:node mark.cjs preinstall:true',
        'install:node mark.cjs install:true',
        'postinstall:node mark.cjs postinstall:true',
      ]);
      expect(stages).toEqual(['resolving', 'fetching', 'classifying', 'done']);
      expect(markers(root)).toEqual([]);
      // The lockfile keeps resolved and integrity despite the user npmrc and the env saying otherwise.
      const entry = lockEntry(root, '@sp-fixture/sandbox-marker');
      expect(entry?.resolved).toBe(`${registry.url}@sp-fixture/sandbox-marker/-/sandbox-marker-1.0.0.tgz`);
      expect(entry?.integrity).toBe(result.value.integrity);
      expect(ledgerOf(root).packs['@sp-fixture/sandbox-marker']).toMatchObject({ status: 'active', trust: null, resolved: entry?.resolved });
      expect(ledgerOf(root).registry).toBe(registry.url); // remembered for later calls on this root
      expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/sandbox-marker']));
    } finally {
      process.env = saved;
    }
  });

  it("records, but never runs, a dependency's install script", async () => {
    const root = newRoot();
    const result = await createInstaller({ root, registry: registry.url }).install('@sp-fixture/sandbox-with-dep@1.0.0');
    expect(result).toMatchObject({ ok: true, value: { installMode: 'sandbox-only', status: 'active' } });
    if (!result.ok) return;
    expect(result.value.scripts).toEqual([
      {
        package: '@sp-fixture/script-dep',
        version: '1.0.0',
        path: 'node_modules/@sp-fixture/script-dep',
        event: 'postinstall',
        command: 'node mark.cjs postinstall',
        own: false,
      },
    ]);
    expect(markers(root)).toEqual([]);
    expect(ledgerOf(root).packs['@sp-fixture/sandbox-with-dep']?.closure.map((c) => c.name)).toEqual([
      '@sp-fixture/sandbox-with-dep',
      '@sp-fixture/script-dep',
    ]);
  });

  it("lists npm's implied node-gyp install script for a binding.gyp, and hands the pack to the compile hook", async () => {
    const root = newRoot();
    const compiled: string[] = [];
    const stages: string[] = [];
    const installer = createInstaller({
      root,
      registry: registry.url,
      compile: async (_root, record) => void compiled.push(`${record.name}@${record.version}`),
    });
    const result = await installer.install('@sp-fixture/gyp-pack', { onProgress: (e) => stages.push(e.stage) });
    expect(result).toMatchObject({ ok: true, value: { status: 'active' } });
    expect(compiled).toEqual(['@sp-fixture/gyp-pack@1.0.0']);
    expect(stages).toEqual(['resolving', 'fetching', 'classifying', 'compiling', 'done']);
    if (result.ok) expect(result.value.scripts.map((s) => s.command)).toEqual(['node-gyp rebuild (implied by binding.gyp)']);
    expect(markers(root)).toEqual([]);
  });

  it('prints the install --json shape and labels a local tarball "unverified source"', async () => {
    const root = newRoot();
    const packDir = mkdtempSync(path.join(os.tmpdir(), 'sp-tgz-'));
    try {
      const packed = await runNpm(['pack', fixture('evolving-1.0.0'), '--pack-destination', packDir, '--ignore-scripts'], { cwd: packDir });
      expect(packed.code).toBe(0);
      const tgz = path.join(packDir, 'sp-fixture-evolving-1.0.0.tgz');
      // The CLI as the user runs it (a process: the installer's tests do not import the CLI face).
      const child = spawn(process.execPath, [CLI, 'install', tgz, '--root', root, '--registry', registry.url, '--json'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number];
      expect(code).toBe(0);
      const printed = JSON.parse(out) as Record<string, unknown>;
      expect(printed).toMatchObject({
        ok: true,
        name: '@sp-fixture/evolving',
        version: '1.0.0',
        installMode: 'sandbox-only',
        status: 'active',
        sourceLabel: 'unverified source',
        scripts: [],
      });
      expect(printed.integrity).toMatch(/^sha512-/);
      expect(ledgerOf(root).packs['@sp-fixture/evolving']).toMatchObject({ source: 'tarball-file', sourceLabel: 'unverified source' });
    } finally {
      rmSync(packDir, { recursive: true, force: true });
    }
  });

  it('refuses a package without a nodetool field and removes it again', async () => {
    const root = newRoot();
    const result = await createInstaller({ root, registry: registry.url }).install('@sp-fixture/not-a-pack');
    expect(result).toEqual({
      ok: false,
      code: 'not-a-pack',
      message: '@sp-fixture/not-a-pack@1.0.0 is not a Sandbox Pack: its package.json has no "nodetool" field, so it was removed again.',
    });
    expect(existsSync(path.join(root, 'node_modules/@sp-fixture/not-a-pack'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).dependencies ?? {}).toEqual({});
    expect(ledgerOf(root).packs).toEqual({});
  });

  it('refuses git specs before npm runs', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    for (const spec of ['github:acme/pack', 'acme/pack', 'git+ssh://git@github.com/acme/pack.git']) {
      expect(await installer.install(spec)).toEqual({
        ok: false,
        code: 'spec-unsupported',
        message: 'Git sources cannot be installed in this version; install a published version from the registry, or a .tgz made with `npm pack`.',
      });
    }
    expect(existsSync(path.join(root, 'node_modules'))).toBe(false);
  });
});

describe('trust and rebuild', () => {
  it("keeps a register pack inactive until trusted, then runs exactly its and its dependency's scripts", async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    const installed = await installer.install('@sp-fixture/register-pack');
    expect(installed).toMatchObject({ ok: true, value: { installMode: 'register', status: 'needs-trust' } });
    expect(await activePackNames(root)).toEqual(new Set());
    expect(await installer.rebuild('@sp-fixture/register-pack')).toEqual({
      ok: false,
      code: 'trust-required',
      message:
        '@sp-fixture/register-pack@1.0.0 needs your trust first: run `trust @sp-fixture/register-pack --dry-run` to see what would run, then `trust @sp-fixture/register-pack`.',
    });
    const plan = await installer.trustDryRun('@sp-fixture/register-pack');
    expect(plan.ok && plan.value.scripts.map((s) => `${s.package} ${s.event}: ${s.command}`)).toEqual([
      '@sp-fixture/register-pack postinstall: node mark.cjs postinstall',
      '@sp-fixture/script-dep postinstall: node mark.cjs postinstall',
    ]);
    expect(markers(root)).toEqual([]);

    const stages: string[] = [];
    const trusted = await installer.trust('@sp-fixture/register-pack', { onProgress: (e) => stages.push(e.stage) });
    expect(trusted).toMatchObject({
      ok: true,
      value: { status: 'active', refetched: false, scriptsRun: ['@sp-fixture/register-pack@1.0.0', '@sp-fixture/script-dep@1.0.0'] },
    });
    // The scripts running is reported as what it is, so the UI never says "compiling" meanwhile.
    expect(stages).toEqual(['classifying', 'rebuilding', 'done']);
    expect(markers(root)).toEqual([
      'MARKER-@sp-fixture__register-pack-postinstall',
      'MARKER-@sp-fixture__script-dep-postinstall',
      'node_modules/@sp-fixture/register-pack/MARKER-@sp-fixture__register-pack-postinstall',
      'node_modules/@sp-fixture/script-dep/MARKER-@sp-fixture__script-dep-postinstall',
    ]);
    const record = ledgerOf(root).packs['@sp-fixture/register-pack'];
    expect(record?.trust).toMatchObject({ name: '@sp-fixture/register-pack', version: '1.0.0', integrity: record?.integrity });
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/register-pack']));
    expect(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).allowScripts).toEqual({
      '@sp-fixture/register-pack@1.0.0': true,
      '@sp-fixture/script-dep@1.0.0': true,
    });

    // The scripts wrote into the pack's own folder. A later rebuild that must fetch the artifact
    // again compares the fresh extraction with the artifact as installed, not with what the
    // scripts left behind, so it verifies and runs them again.
    const built = ledgerOf(root).packs['@sp-fixture/register-pack']?.closure[0];
    expect(built?.builtDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(built?.builtDigest).not.toBe(built?.treeDigest);
    await rm(path.join(root, 'node_modules/@sp-fixture/register-pack'), { recursive: true, force: true });
    const again = await installer.rebuild('@sp-fixture/register-pack');
    expect(again).toMatchObject({ ok: true, value: { status: 'active', refetched: true } });
    expect(markers(root)).toContain('node_modules/@sp-fixture/register-pack/MARKER-@sp-fixture__register-pack-postinstall');
    expect(ledgerOf(root).packs['@sp-fixture/register-pack']?.closure[0]?.treeDigest).toBe(built?.treeDigest);
  });

  it('refuses to run anything when a refetch gets different bytes for the same version', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/register-pack')).toMatchObject({ ok: true });
    const record = ledgerOf(root).packs['@sp-fixture/register-pack'];
    // The registry now serves other bytes under 1.0.0, and the artifact on disk (and npm's cache) is gone.
    await registry.replaceTarball('@sp-fixture/register-pack', '1.0.0', fixture('register-pack-1.0.0-tampered'));
    try {
      await rm(path.join(root, 'node_modules/@sp-fixture/register-pack'), { recursive: true, force: true });
      await rm(path.join(root, '.npm-cache'), { recursive: true, force: true });
      const result = await installer.trust('@sp-fixture/register-pack');
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.code).toBe('integrity-mismatch');
      expect(result.message).toMatch(
        new RegExp(
          `^The registry served a different artifact for @sp-fixture/register-pack@1\\.0\\.0 than the one first installed \\(expected ${record!.integrity.replace(/[+/=]/g, '\\$&')}, got sha512-.+\\); nothing was run and the pack stays inactive\\.$`,
        ),
      );
      expect(markers(root)).toEqual([]);
      expect(ledgerOf(root).packs['@sp-fixture/register-pack']?.status).toBe('needs-rebuild');
      expect(await activePackNames(root)).toEqual(new Set());
    } finally {
      await registry.replaceTarball('@sp-fixture/register-pack', '1.0.0', fixture('register-pack-1.0.0'));
    }
    // With the original bytes back, the same refetch verifies and the scripts run.
    const retried = await installer.rebuild('@sp-fixture/register-pack');
    expect(retried).toMatchObject({ ok: true, value: { status: 'active', refetched: true } });
    expect(markers(root)).toContain('MARKER-@sp-fixture__register-pack-postinstall');
  });
  it("reconcile deletes a killed write's temp files but never one of a process still running (its write is in flight)", async () => {
    // Two processes starting on one root at once (two MCP servers in a test): one reconciled under
    // the lock while the other created the root's package.json through a temp file, and deleting
    // that temp made the other fail to start (ENOENT on its link).
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/evolving@1.0.0')).toMatchObject({ ok: true });
    const dead = spawn(process.execPath, ['-e', '']);
    await once(dead, 'exit');
    const leftover = `package.json.${dead.pid}.0badc0de.tmp`;
    const inFlight = `package.json.${process.pid}.0facade0.tmp`;
    writeFileSync(path.join(root, leftover), '{');
    writeFileSync(path.join(root, inFlight), '{');
    const report = await installer.reconcile();
    expect(report).toMatchObject({ ok: true, value: { fixed: [`Deleted ${leftover}, left by an interrupted write.`] } });
    expect([existsSync(path.join(root, leftover)), existsSync(path.join(root, inFlight))]).toEqual([false, true]);
  });
  it('a pack whose files were cut short (package.json unreadable) stays recorded; reconcile deletes the files and rebuild fetches them again', async () => {
    // As a rebuild's refetch killed while npm extracted it leaves the pack (a crash seed found it:
    // the pack used to be forgotten, and the rebuild run again answered not-installed).
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/register-pack')).toMatchObject({ ok: true });
    expect(await installer.trust('@sp-fixture/register-pack')).toMatchObject({ ok: true, value: { status: 'active' } });
    const recorded = ledgerOf(root).packs['@sp-fixture/register-pack'];
    const dir = path.join(root, 'node_modules/@sp-fixture/register-pack');
    writeFileSync(path.join(dir, 'package.json'), '{"name": "@sp-fixture/regi');
    expect(await activePackNames(root)).toEqual(new Set());

    expect(await installer.reconcile()).toEqual({
      ok: true,
      value: {
        fixed: ['Deleted node_modules/@sp-fixture/register-pack: its package.json was unreadable, left cut short by an interrupted operation.'],
        removedFromTree: [],
        forgotten: [],
        missing: [
          "@sp-fixture/register-pack@1.0.0's files are missing, so it is inactive; `rebuild @sp-fixture/register-pack` fetches it again (verified) or `uninstall @sp-fixture/register-pack` drops it.",
        ],
      },
    });
    expect(existsSync(dir)).toBe(false);
    expect(ledgerOf(root).packs['@sp-fixture/register-pack']).toEqual(recorded);
    expect(await installer.rebuild('@sp-fixture/register-pack')).toMatchObject({ ok: true, value: { status: 'active', refetched: true } });
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/register-pack']));
  });
});

describe('failing scripts', () => {
  it('a trusted pack whose install script fails stays inactive with rebuild-failed', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/register-failing')).toMatchObject({ ok: true, value: { status: 'needs-trust' } });
    const result = await installer.trust('@sp-fixture/register-failing');
    expect(result).toMatchObject({ ok: false, code: 'rebuild-failed' });
    if (!result.ok) expect(result.message).toMatch(/^The install scripts of @sp-fixture\/register-failing@1\.0\.0 failed\. npm said:\n/);
    expect(ledgerOf(root).packs['@sp-fixture/register-failing']).toMatchObject({ status: 'needs-rebuild', trust: { version: '1.0.0' } });
    expect(await activePackNames(root)).toEqual(new Set());
  });

  it('an unreadable root package.json is a tagged failure before any script runs, not a thrown Error', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/register-pack')).toMatchObject({ ok: true, value: { status: 'needs-trust' } });
    const packageJson = path.join(root, 'package.json');
    rmSync(packageJson);
    mkdirSync(packageJson);
    expect(await installer.trust('@sp-fixture/register-pack')).toEqual({
      ok: false,
      code: 'root-unreadable',
      message: `${packageJson} could not be read: EISDIR: illegal operation on a directory, read`,
    });
    expect(markers(root)).toEqual([]);
    expect(ledgerOf(root).packs['@sp-fixture/register-pack']).toMatchObject({ status: 'needs-rebuild' });
    expect(await activePackNames(root)).toEqual(new Set());
  });
});

describe('interrupted and concurrent operations', () => {
  it('an install killed with SIGKILL mid-way leaves no active half pack; the next start reconciles it', async () => {
    const root = newRoot();
    // Make the root managed first, as the app's root always is.
    expect(await createInstaller({ root, registry: registry.url }).install('@sp-fixture/evolving@1.0.0')).toMatchObject({ ok: true });
    const child = spawn(process.execPath, [CLI, 'install', '@sp-fixture/sandbox-with-dep', '--root', root], { detached: true, stdio: 'ignore' });
    const target = path.join(root, 'node_modules/@sp-fixture/sandbox-with-dep');
    const deadline = Date.now() + 60_000;
    while (!existsSync(target) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    process.kill(-(child.pid as number), 'SIGKILL'); // the CLI and its npm child together
    await once(child, 'exit').catch(() => {});
    if (child.exitCode === null) await new Promise((r) => setTimeout(r, 50));

    expect(existsSync(path.join(root, LOCK_DIR))).toBe(true); // left behind by the dead process
    expect(Object.keys(ledgerOf(root).packs)).toEqual(['@sp-fixture/evolving']);
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/evolving']));

    const report = await createInstaller({ root }).reconcile();
    expect(report.ok).toBe(true);
    if (report.ok) {
      expect(report.value.fixed.length).toBeGreaterThan(0);
      expect(report.value.fixed.join(' ')).toContain('@sp-fixture/sandbox-with-dep');
    }
    expect(existsSync(target)).toBe(false);
    expect(existsSync(path.join(root, LOCK_DIR))).toBe(false);
    expect(Object.keys(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).dependencies)).toEqual(['@sp-fixture/evolving']);
    // The root works again: the same install now completes.
    expect(await createInstaller({ root }).install('@sp-fixture/sandbox-with-dep')).toMatchObject({ ok: true, value: { status: 'active' } });
  });

  it('two concurrent installs on one root: one proceeds, the other is told the root is busy (or waits when asked)', async () => {
    const root = newRoot();
    const a = createInstaller({ root, registry: registry.url });
    const b = createInstaller({ root, registry: registry.url });
    const results = await Promise.all([a.install('@sp-fixture/sandbox-marker'), b.install('@sp-fixture/evolving')]);
    const failed = results.filter((r) => !r.ok);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ code: 'busy' });

    const waiting = createInstaller({ root, lockWaitMs: 120_000 });
    const loser = results[0]?.ok ? '@sp-fixture/evolving' : '@sp-fixture/sandbox-marker';
    const [r1, r2] = await Promise.all([waiting.install(loser), createInstaller({ root, lockWaitMs: 120_000 }).install('@sp-fixture/gyp-pack')]);
    expect(r1.ok && r2.ok).toBe(true);
    expect(Object.keys(ledgerOf(root).packs).sort()).toEqual(['@sp-fixture/evolving', '@sp-fixture/gyp-pack', '@sp-fixture/sandbox-marker']);
  });
});

describe('update and uninstall', () => {
  it('re-classifies on update: sandbox-only → hybrid loses active status until trusted; consent does not carry to another version', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/evolving@1.0.0')).toMatchObject({ ok: true, value: { installMode: 'sandbox-only', status: 'active' } });
    const up = await installer.update('@sp-fixture/evolving');
    expect(up).toMatchObject({ ok: true, value: { version: '2.0.0', previousVersion: '1.0.0', installMode: 'hybrid', status: 'needs-trust' } });
    expect(await activePackNames(root)).toEqual(new Set());
    expect(await installer.trust('@sp-fixture/evolving')).toMatchObject({ ok: true, value: { status: 'active', scriptsRun: [] } });
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/evolving']));

    const down = await installer.update('@sp-fixture/evolving', { to: '1.0.0' });
    expect(down).toMatchObject({ ok: true, value: { version: '1.0.0', installMode: 'sandbox-only', status: 'active' } });
    expect(ledgerOf(root).packs['@sp-fixture/evolving']?.trust).toBeNull();
    const back = await installer.update('@sp-fixture/evolving', { to: '2.0.0' });
    expect(back).toMatchObject({ ok: true, value: { status: 'needs-trust' } });

    expect(await installer.uninstall('@sp-fixture/evolving')).toEqual({ ok: true, value: { name: '@sp-fixture/evolving', version: '2.0.0' } });
    expect(existsSync(path.join(root, 'node_modules/@sp-fixture/evolving'))).toBe(false);
    expect(ledgerOf(root).packs).toEqual({});
    expect(await installer.uninstall('@sp-fixture/evolving')).toEqual({
      ok: false,
      code: 'not-installed',
      message: 'No pack named @sp-fixture/evolving is installed.',
    });
    expect(await installer.update('@sp-fixture/evolving')).toEqual({
      ok: false,
      code: 'not-installed',
      message: 'No pack named @sp-fixture/evolving is installed.',
    });
  });

  it('an update to a version that is no longer a pack rolls back to the recorded artifact', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/evolving@1.0.0')).toMatchObject({ ok: true });
    const before = ledgerOf(root);
    expect(await installer.update('@sp-fixture/evolving', { to: 'broken' })).toEqual({
      ok: false,
      code: 'not-a-pack',
      message: '@sp-fixture/evolving@3.0.0 is not a Sandbox Pack: its package.json has no "nodetool" field, so it was removed again.',
    });
    expect(ledgerOf(root)).toEqual(before);
    expect(JSON.parse(readFileSync(path.join(root, 'node_modules/@sp-fixture/evolving/package.json'), 'utf8')).version).toBe('1.0.0');
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/evolving']));
  });

  it("a local tarball carrying an installed pack's name and version cannot replace it", async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install('@sp-fixture/evolving@1.0.0')).toMatchObject({ ok: true });
    const recorded = ledgerOf(root).packs['@sp-fixture/evolving'];
    const packDir = mkdtempSync(path.join(os.tmpdir(), 'sp-tgz-'));
    try {
      expect((await runNpm(['pack', fixture('evolving-1.0.0-impostor'), '--pack-destination', packDir, '--ignore-scripts'], { cwd: packDir })).code).toBe(0);
      const tgz = path.join(packDir, 'sp-fixture-evolving-1.0.0.tgz');
      expect(await installer.install(tgz)).toEqual({
        ok: false,
        code: 'conflict',
        message: `${tgz} contains @sp-fixture/evolving, which is already installed; uninstall it first if you mean to replace it.`,
      });
    } finally {
      rmSync(packDir, { recursive: true, force: true });
    }
    expect(await treeDigest(path.join(root, 'node_modules/@sp-fixture/evolving'))).toBe(recorded?.closure[0]?.treeDigest);
    expect(ledgerOf(root).packs['@sp-fixture/evolving']).toEqual(recorded);
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/evolving']));
  });

  it('a plain tree without a ledger is not managed: activePackNames is undefined and reconcile leaves it alone', async () => {
    const root = newRoot();
    expect(await activePackNames(root)).toBeUndefined();
    expect(await createInstaller({ root }).reconcile()).toEqual({ ok: true, value: { fixed: [], removedFromTree: [], forgotten: [], missing: [] } });
    expect(existsSync(ledgerPath(root))).toBe(false);
  });
});
