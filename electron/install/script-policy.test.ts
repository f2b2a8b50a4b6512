// The allowScripts keys we write, against real npm 11 and a real Verdaccio. npm matches a policy
// key by the node's source, not by its name: a registry node by name@version parsed from its
// registry URL, a tarball file by its absolute `file:` path, a remote tarball by its exact URL.
// So trust must work for a pack installed from a tarball or a `file:` spec, and an untrusted
// tarball pack beside a trusted one must be denied in a form npm matches (else the strict check
// refuses the whole rebuild). Markers on disk prove which scripts ran.

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { activePackNames } from './active-packs.ts';
import { createInstaller } from './installer.ts';
import { ensureRoot, NO_SCRIPTS, npmBaseArgs, readLockfile, readRootPackageJson, writeAllowScripts } from './npm-root.ts';
import { npmErrorSummary, runNpm } from './npm-runner.ts';
import { scriptPolicyKey } from './script-policy.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const fixture = (dir: string) => path.join(FIXTURES, dir);
const PACK = '@sp-fixture/register-tarball';
const PACK_MARKER = 'node_modules/@sp-fixture/register-tarball/MARKER-@sp-fixture__register-tarball-postinstall';
const DEP_MARKER = 'node_modules/@sp-fixture/script-dep/MARKER-@sp-fixture__script-dep-postinstall';
const REGISTRY_PACK_MARKER = 'node_modules/@sp-fixture/register-pack/MARKER-@sp-fixture__register-pack-postinstall';

vi.setConfig({ testTimeout: 180_000 });

let registry: TestRegistry;
let packDir: string;
let tgz: string;
const roots: string[] = [];

function newRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sp-policy-'));
  roots.push(root);
  return root;
}

const has = (root: string, rel: string) => existsSync(path.join(root, rel));
const allowScriptsOf = (root: string) => (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { allowScripts?: unknown }).allowScripts;

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const dir of ['script-dep-1.0.0', 'register-pack-1.0.0', 'sandbox-marker-1.0.0']) await registry.publish(fixture(dir));
  // The tarball pack is never published: it exists only as a local .tgz.
  packDir = mkdtempSync(path.join(os.tmpdir(), 'sp-policy-tgz-'));
  const packed = await runNpm(['pack', fixture('register-tarball-1.0.0'), '--pack-destination', packDir, '--ignore-scripts'], { cwd: packDir });
  if (packed.code !== 0) throw new Error(`npm pack failed: ${npmErrorSummary(packed)}`);
  tgz = path.join(packDir, 'sp-fixture-register-tarball-1.0.0.tgz');
}, 180_000);

afterAll(async () => {
  await registry?.stop();
  if (packDir) await rm(packDir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe('trust of packs that did not come from the registry', () => {
  it("a register pack from a local tarball: trust runs its and its registry dependency's scripts; a rebuild that refetches from the file runs them again", async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    expect(await installer.install(tgz)).toMatchObject({
      ok: true,
      value: { name: PACK, installMode: 'register', status: 'needs-trust', sourceLabel: 'unverified source' },
    });

    const trusted = await installer.trust(PACK);
    expect(trusted).toMatchObject({ ok: true, value: { status: 'active', refetched: false, scriptsRun: [`${PACK}@1.0.0`, '@sp-fixture/script-dep@1.0.0'] } });
    expect(has(root, PACK_MARKER)).toBe(true);
    expect(has(root, DEP_MARKER)).toBe(true);
    // npm's key for a tarball file is its absolute file: path; the registry dependency keeps name@version.
    expect(allowScriptsOf(root)).toEqual({ [`file:${tgz}`]: true, '@sp-fixture/script-dep@1.0.0': true });
    expect(await activePackNames(root)).toEqual(new Set([PACK]));

    await rm(path.join(root, 'node_modules', PACK), { recursive: true, force: true });
    expect(await installer.rebuild(PACK)).toMatchObject({ ok: true, value: { status: 'active', refetched: true } });
    expect(has(root, PACK_MARKER)).toBe(true);
  });

  it("a `file:` spec installs the same way; a registry pack trusted beside the untrusted tarball pack still works, and the tarball pack's scripts stay off until it is trusted", async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    const spec = `file:${path.relative(process.cwd(), tgz)}`;
    expect(await installer.install(spec)).toMatchObject({ ok: true, value: { name: PACK, status: 'needs-trust' } });
    expect(await installer.install('@sp-fixture/register-pack')).toMatchObject({ ok: true, value: { status: 'needs-trust' } });

    // The untrusted tarball pack must be denied in a form npm matches, or the strict check refuses
    // the whole rebuild of the registry pack.
    expect(await installer.trust('@sp-fixture/register-pack')).toMatchObject({
      ok: true,
      value: { status: 'active', scriptsRun: ['@sp-fixture/register-pack@1.0.0', '@sp-fixture/script-dep@1.0.0'] },
    });
    expect(has(root, REGISTRY_PACK_MARKER)).toBe(true);
    expect(has(root, DEP_MARKER)).toBe(true);
    expect(has(root, PACK_MARKER)).toBe(false);
    expect(allowScriptsOf(root)).toEqual({ [`file:${tgz}`]: false, '@sp-fixture/register-pack@1.0.0': true, '@sp-fixture/script-dep@1.0.0': true });
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/register-pack']));

    expect(await installer.trust(PACK)).toMatchObject({ ok: true, value: { status: 'active', scriptsRun: [`${PACK}@1.0.0`, '@sp-fixture/script-dep@1.0.0'] } });
    expect(has(root, PACK_MARKER)).toBe(true);
    expect(allowScriptsOf(root)).toEqual({ [`file:${tgz}`]: true, '@sp-fixture/register-pack@1.0.0': true, '@sp-fixture/script-dep@1.0.0': true });
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/register-pack', PACK]));
  });
});

describe('a sandbox-only pack with install scripts (what the README says)', () => {
  it('installs active; its scripts never run, and trust and rebuild run nothing for it', async () => {
    const root = newRoot();
    const installer = createInstaller({ root, registry: registry.url });
    const installed = await installer.install('@sp-fixture/sandbox-marker');
    expect(installed).toMatchObject({ ok: true, value: { installMode: 'sandbox-only', status: 'active' } });
    expect(installed.ok && installed.value.scripts.map((s) => s.event)).toEqual(['preinstall', 'install', 'postinstall']);
    expect(await installer.trust('@sp-fixture/sandbox-marker')).toMatchObject({
      ok: true,
      value: { status: 'active', scriptsRun: [], note: 'Sandbox-only packs run no host code and no install scripts; it is active already.' },
    });
    expect(await installer.rebuild('@sp-fixture/sandbox-marker')).toMatchObject({
      ok: true,
      value: { scriptsRun: [], note: 'Sandbox-only packs never run install scripts.' },
    });
    expect(has(root, 'node_modules/@sp-fixture/sandbox-marker/MARKER-@sp-fixture__sandbox-marker-postinstall')).toBe(false);
    expect(has(root, 'MARKER-@sp-fixture__sandbox-marker-preinstall')).toBe(false);
    expect(allowScriptsOf(root)).toEqual({ '@sp-fixture/sandbox-marker@1.0.0': false });
    expect(await activePackNames(root)).toEqual(new Set(['@sp-fixture/sandbox-marker']));
  });
});

describe('the key npm matches for a remote tarball', () => {
  // The installer accepts tarball URLs over https only and the test registry speaks http, so this
  // drives npm directly: the pack is installed by its tarball URL (a remote spec, not a registry
  // one, even though the bytes come from the registry).
  it('is the exact resolved URL; name@version does not match a remote node and the strict check refuses it', async () => {
    const root = newRoot();
    await ensureRoot(root);
    const url = `${registry.url}@sp-fixture/register-pack/-/register-pack-1.0.0.tgz`;
    const base = npmBaseArgs(root, registry.url);
    const installed = await runNpm(['install', ...NO_SCRIPTS, url, ...base], { cwd: root });
    expect(installed.code).toBe(0);
    const lock = await readLockfile(root);
    const rootPkg = await readRootPackageJson(root);
    if (!lock.ok || !lock.value || !rootPkg.ok) throw new Error('no lockfile or package.json after install');
    const packEntry = lock.value.packages['node_modules/@sp-fixture/register-pack'];
    const depEntry = lock.value.packages['node_modules/@sp-fixture/script-dep'];
    expect(packEntry?.resolved).toBe(url);
    const packKey = scriptPolicyKey(
      root,
      registry.url,
      { name: '@sp-fixture/register-pack', version: '1.0.0', resolved: packEntry?.resolved },
      rootPkg.value.dependencies?.['@sp-fixture/register-pack'],
    );
    const depKey = scriptPolicyKey(root, registry.url, { name: '@sp-fixture/script-dep', version: '1.0.0', resolved: depEntry?.resolved });
    expect([packKey, depKey]).toEqual([url, '@sp-fixture/script-dep@1.0.0']);

    const rebuild = () =>
      runNpm(
        [
          'rebuild',
          '--ignore-scripts=false',
          '--strict-allow-scripts=true',
          '--foreground-scripts=false',
          '@sp-fixture/register-pack@1.0.0',
          '@sp-fixture/script-dep@1.0.0',
          ...base,
        ],
        { cwd: root },
      );
    expect(await writeAllowScripts(root, ['@sp-fixture/register-pack@1.0.0', depKey], [])).toEqual({ ok: true, value: undefined });
    const refused = await rebuild();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('ESTRICTALLOWSCRIPTS');
    expect(has(root, REGISTRY_PACK_MARKER)).toBe(false);

    expect(await writeAllowScripts(root, [packKey, depKey], [])).toEqual({ ok: true, value: undefined });
    const ran = await rebuild();
    expect(ran.code, npmErrorSummary(ran)).toBe(0);
    expect(has(root, REGISTRY_PACK_MARKER)).toBe(true);
    expect(has(root, DEP_MARKER)).toBe(true);
  });
});

describe('scriptPolicyKey', () => {
  const root = path.join(os.tmpdir(), 'some-root');
  const reg = 'https://registry.example/';
  it('gives name@version for a registry tarball of exactly that package, scoped (also %2f-encoded) or not', () => {
    expect(scriptPolicyKey(root, reg, { name: 'a', version: '1.2.3', resolved: 'https://registry.example/a/-/a-1.2.3.tgz' }, '1.2.3')).toBe('a@1.2.3');
    expect(
      scriptPolicyKey(root, 'https://registry.example', { name: '@s/b', version: '2.0.0', resolved: 'https://registry.example/@s%2fb/-/b-2.0.0.tgz' }),
    ).toBe('@s/b@2.0.0');
  });
  it('gives the absolute file: path for a tarball file, resolved against the root as arborist does', () => {
    expect(scriptPolicyKey(root, reg, { name: 'a', version: '1.0.0', resolved: 'file:../t/a-1.0.0.tgz' }, 'file:../t/a-1.0.0.tgz')).toBe(
      `file:${path.resolve(root, '../t/a-1.0.0.tgz')}`,
    );
  });
  it('gives the exact URL for a remote tarball: another host, another name inside the URL (an alias), or a top-level spec that is a URL', () => {
    const url = 'https://registry.example/a/-/a-1.2.3.tgz';
    expect(scriptPolicyKey(root, reg, { name: 'a', version: '1.2.3', resolved: url }, url)).toBe(url);
    expect(scriptPolicyKey(root, reg, { name: 'a', version: '1.2.3', resolved: 'https://cdn.example/a/-/a-1.2.3.tgz' })).toBe(
      'https://cdn.example/a/-/a-1.2.3.tgz',
    );
    expect(scriptPolicyKey(root, reg, { name: 'x', version: '1.2.3', resolved: url })).toBe(url);
  });
  it('gives the resolved git URL for a git dependency, and name@version when nothing is resolved', () => {
    const git = 'git+ssh://git@github.com/acme/dep.git#0123456789abcdef0123456789abcdef01234567';
    expect(scriptPolicyKey(root, reg, { name: 'dep', version: '1.0.0', resolved: git })).toBe(git);
    expect(scriptPolicyKey(root, reg, { name: 'dep', version: '1.0.0' })).toBe('dep@1.0.0');
  });
});
