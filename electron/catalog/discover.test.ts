import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedPack } from '../../shared/packs/pack-loader.ts';
import { discover, type Discovery } from './discover.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/discovery');

async function discoverOk(root: string, options: Parameters<typeof discover>[1] = {}): Promise<Discovery> {
  const result = await discover(root, options);
  if (!result.ok) throw new Error(`discovery failed: ${result.message}`);
  return result.value;
}

function pack(d: Discovery, name: string): LoadedPack {
  const found = d.packs.find((p) => p.name === name);
  if (!found) throw new Error(`pack ${name} not discovered; found ${d.packs.map((p) => p.name).join(', ')}`);
  return found;
}

function moduleCodes(p: LoadedPack): Record<string, string> {
  return Object.fromEntries(p.modules.map((m) => [m.specifier, m.status === 'ready' ? 'ready' : (m.code ?? '?')]));
}

describe('discovery of the good fixture root', () => {
  let d: Discovery;
  beforeAll(async () => {
    d = await discoverOk(path.join(fixtures, 'good'));
  });

  it('finds only sandbox packs (not plain packages, not node-only NodeTool packs)', () => {
    expect(d.packs.map((p) => p.name)).toEqual(['@acme/geo']);
  });

  it('makes every module ready with opaque ids and digests, and reads the skill', () => {
    const geo = pack(d, '@acme/geo');
    expect(geo.status).toBe('ok');
    expect(geo.warnings).toEqual([]);
    expect(geo.skill?.frontmatter.name).toBe('acme-geo');
    expect(moduleCodes(geo)).toEqual({ '@acme/geo': 'ready', '@acme/geo/extra': 'ready', '@acme/geo/simplify-wasm': 'ready' });
    for (const m of geo.modules) {
      expect(m.moduleId).toMatch(/^m_[0-9a-f]{24}$/);
      expect(m.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(m.hasSkill).toBe(true);
    }
    // JS export names come from the code for the UI, but the disclosure line stays manifest-only.
    const root = geo.modules.find((m) => m.specifier === '@acme/geo');
    expect(root?.exports).toEqual(['haversine']);
    expect(root?.summary).toBe('@acme/geo (js): Great-circle distance between two points, in km.');
    expect(geo.modules.find((m) => m.specifier === '@acme/geo/extra')?.exports).toBeUndefined();
    const wasm = geo.modules.find((m) => m.kind === 'wasm');
    expect(wasm?.exports).toEqual(['add', 'scale']);
    expect(wasm?.summary).toBe('@acme/geo/simplify-wasm (wasm; exports add, scale)');
  });

  it('links entries, the internal helper, the facade and the bridge', () => {
    const geo = pack(d, '@acme/geo');
    const byId = geo.graph?.modules ?? new Map();
    const ids = Object.fromEntries(geo.modules.map((m) => [m.specifier, m.moduleId ?? '']));
    const extra = byId.get(ids['@acme/geo/extra'] ?? '');
    const util = [...byId.values()].find((m) => m.displayName === '@acme/geo internal sandbox/util.js');
    expect(util?.specifier).toBeUndefined();
    expect(extra?.imports).toEqual({
      '@acme/geo': ids['@acme/geo'],
      '@acme/geo/simplify-wasm': ids['@acme/geo/simplify-wasm'],
      './util.js': util?.moduleId,
    });
    const facade = byId.get(ids['@acme/geo/simplify-wasm'] ?? '');
    expect(facade?.imports).toEqual({ 'sandbox:wasm-bridge': 'sandbox:wasm-bridge' });
    expect(facade?.source).toContain(`const id = ${JSON.stringify(facade?.moduleId)};`);
    expect(facade?.wasm?.exports).toEqual([
      { wasm: 'add', as: 'add', params: ['i32', 'i32'], results: ['i32'] },
      { wasm: 'scale-f64', as: 'scale', params: ['f64', 'f64'], results: ['f64'] },
    ]);
    // The binary the pool will run is the one validated (it compiles with the real engine).
    expect(() => new WebAssembly.Module(facade?.wasm?.bytes as Uint8Array<ArrayBuffer>)).not.toThrow();
  });

  it('is deterministic: same ids and digests on a second run', async () => {
    const again = await discoverOk(path.join(fixtures, 'good'));
    expect(again.packs).toEqual(d.packs);
  });

  it('gives a module a different digest when anything in its graph changes', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'h1-digest-'));
    try {
      execFileSync('cp', ['-R', path.join(fixtures, 'good', 'node_modules'), root]);
      const before = pack(await discoverOk(root), '@acme/geo');
      await writeFile(
        path.join(root, 'node_modules/@acme/geo/sandbox/util.js'),
        'export const EARTH_KM = 6371.0088;\nexport function toRad(d) { return (d * Math.PI) / 180; }\n',
      );
      const after = pack(await discoverOk(root), '@acme/geo');
      const digest = (p: LoadedPack, s: string) => p.modules.find((m) => m.specifier === s)?.digest;
      // geo and extra import util.js; the WASM facade does not.
      expect(digest(after, '@acme/geo')).not.toBe(digest(before, '@acme/geo'));
      expect(digest(after, '@acme/geo/extra')).not.toBe(digest(before, '@acme/geo/extra'));
      expect(digest(after, '@acme/geo/simplify-wasm')).toBe(digest(before, '@acme/geo/simplify-wasm'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

function jsonError(file: string): string {
  try {
    JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    expect((error as Error).message).toMatch(/^Expected double-quoted property name in JSON at position 76\b/);
    return (error as Error).message;
  }
  throw new Error(`${file} parsed`);
}

describe('discovery rules (fixtures/discovery/rules)', () => {
  let d: Discovery;
  beforeAll(async () => {
    d = await discoverOk(path.join(fixtures, 'rules'));
  });

  it.each([
    ['api-version-2', 'api-version-unsupported', 'nodetool.apiVersion is 2; this app understands apiVersion 1.'],
    // The runtime's own sentence (Node 24 adds the line and column to the position).
    ['broken-json', 'package-json-invalid', `package.json is not valid JSON: ${jsonError(path.join(fixtures, 'rules/node_modules/broken-json/package.json'))}`],
    ['duplicate-names', 'duplicate-module-name', 'Two modules resolve to the same specifier: "duplicate-names/extra" and "duplicate-names/Extra".'],
    [
      'internal-cycle',
      'internal-cycle',
      'These modules import each other in a cycle that includes internal helpers: internal-cycle internal lib/a.js, internal-cycle internal lib/b.js.',
    ],
    ['internal-duplicate', 'internal-duplicate', 'internal entries "lib/a.js" and "./lib/../lib/a.js" name the same file "lib/a.js".'],
    ['internal-not-js', 'internal-invalid', 'internal entry "lib/a.ts" is not a .js file; internal helpers are JavaScript modules.'],
    [
      'manifest-typo',
      'manifest-invalid',
      'package.json nodetool: sandboxModules.0: Unrecognized key: "fiel"; sandboxModules.0: a js module declares exactly one of "file" or "npm"',
    ],
    [
      'name-mismatch',
      'manifest-invalid',
      'package.json names the package "@acme/geo" but it is installed as "name-mismatch"; a pack is known only by its install name.',
    ],
  ])('rejects pack %s with %s', (name, code, reason) => {
    const p = pack(d, name);
    expect({ status: p.status, code: p.code, reason: p.reason, modules: p.modules }).toEqual({ status: 'rejected', code, reason, modules: [] });
  });

  it('skips files outside the pack, keeps the rest', () => {
    const p = pack(d, 'escape-dotdot');
    expect(p.status).toBe('ok');
    expect(moduleCodes(p)).toEqual({
      'escape-dotdot': 'file-outside-pack',
      'escape-dotdot/fine': 'ready',
      'escape-dotdot/abs': 'file-outside-pack',
      'escape-dotdot/encoded': 'file-outside-pack',
    });
    expect(p.modules[0]?.reason).toBe('file "../outside.js": "../outside.js" climbs above the pack root.');
  });

  it('refuses a symlink that points outside, allows one that stays inside', () => {
    const p = pack(d, 'symlink-out');
    expect(moduleCodes(p)).toEqual({ 'symlink-out': 'file-symlink-escape', 'symlink-out/inner': 'ready' });
    expect(p.modules[0]?.reason).toBe('link.js is a symbolic link that points outside the pack.');
  });

  it('skips bad names one by one', () => {
    const p = pack(d, 'bad-names');
    expect(p.modules.map((m) => m.code ?? m.status)).toEqual([
      'module-name-invalid',
      'module-name-invalid',
      'module-name-invalid',
      'module-name-invalid',
      'module-name-invalid',
      'module-name-invalid',
      'module-name-invalid',
      'ready',
    ]);
  });

  it.each([
    ['dynamic-import', { 'dynamic-import': 'js-dynamic-import' }],
    ['uses-require', { 'uses-require': 'js-require', 'uses-require/member': 'js-require', 'uses-require/bare': 'js-require' }],
    ['node-imports', { 'node-imports': 'js-node-import', 'node-imports/bare': 'js-node-import', 'node-imports/sub': 'js-node-import' }],
    ['cross-pack', { 'cross-pack': 'js-import-outside-pack', 'cross-pack/undeclared': 'js-import-unresolved', 'cross-pack/url': 'js-import-outside-pack' }],
    ['bridge-import', { 'bridge-import': 'js-bridge-import' }],
    ['syntax-error', { 'syntax-error': 'js-syntax-error' }],
    ['npm-entry', { 'npm-entry': 'npm-bundle-failed' }],
    [
      'unresolved',
      {
        unresolved: 'js-import-unresolved',
        'unresolved/escape': 'js-import-outside-pack',
        'unresolved/sibling-file': 'js-import-unresolved',
        'unresolved/helper-user': 'js-dynamic-import',
      },
    ],
  ])('JS rule fixture %s', (name, codes) => {
    expect(moduleCodes(pack(d, name))).toEqual(codes);
  });

  it('names the failing line and the chain that made a module unavailable', () => {
    const p = pack(d, 'unresolved');
    expect(p.modules.find((m) => m.specifier === 'unresolved/helper-user')?.reason).toBe(
      'unresolved/helper-user imports unresolved internal lib/broken.js, which is unavailable: lib/broken.js:1:18: import() is not allowed; use a static import of a file of this pack.',
    );
    expect(p.warnings).toContainEqual({ code: 'js-require', message: 'lib/unused-broken.js:1:18: require is not available; use a static import.' });
    expect(pack(d, 'npm-entry').modules[0]?.reason).toBe('npm-entry: npm module "papaparse" needs the npm compiler, which is not available here.');
  });

  it('applies every WASM binary rule, naming the export', () => {
    const p = pack(d, 'wasm-rules');
    expect(moduleCodes(p)).toEqual({
      'wasm-rules/ok': 'ready',
      'wasm-rules/imports': 'wasm-imports',
      'wasm-rules/unbounded': 'wasm-memory-unbounded',
      'wasm-rules/big-memory': 'wasm-memory-too-large',
      'wasm-rules/shared-memory': 'wasm-memory-shared',
      'wasm-rules/i64': 'wasm-export-signature',
      'wasm-rules/missing-export': 'wasm-export-missing',
      'wasm-rules/not-function': 'wasm-export-not-function',
      'wasm-rules/dash-name': 'wasm-export-name-invalid',
      'wasm-rules/dash-mapped': 'ready',
      'wasm-rules/garbage': 'wasm-invalid',
      'wasm-rules/uses-ok': 'ready',
      'wasm-rules/uses-bad': 'wasm-imports',
    });
    expect(p.modules.find((m) => m.specifier === 'wasm-rules/i64')?.reason).toBe('i64.wasm: export `hash` takes i64');
  });

  it('keeps SKILL.md problems as warnings, never disabling a module', () => {
    const p = pack(d, 'bad-skill');
    expect(p.warnings).toEqual([{ code: 'skill-invalid', message: 'SKILL.md: the frontmatter block is not closed with "---".' }]);
    expect(moduleCodes(p)).toEqual({ 'bad-skill': 'ready' });
    expect(pack(d, 'dynamic-import').warnings).toEqual([{ code: 'skill-missing', message: 'SKILL.md is missing; agents get no documentation for this pack.' }]);
  });
});

describe('discovery limits and roots (generated at test time)', () => {
  let root: string;
  const packJson = (name: string, modules: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name, version: '1.0.0', ...extra, nodetool: { apiVersion: 1, sandboxModules: modules } });
  const addPack = async (name: string, modules: unknown[], files: Record<string, string | Uint8Array>, extra: Record<string, unknown> = {}) => {
    const dir = path.join(root, 'node_modules', name);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), packJson(name, modules, extra));
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), content);
    }
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'h1-limits-'));
    const js = (name: string, file: string) => ({ name, kind: 'js', file });
    const wasm = (name: string, file: string) => ({ name, kind: 'wasm', file, memoryPagesMax: 1, exports: ['f'] });
    await addPack('oversize-js', [js('.', 'big.js'), js('small', 'small.js')], {
      'big.js': `export const s = "${'x'.repeat(256 * 1024)}";`,
      'small.js': 'export {};',
    });
    await addPack('oversize-wasm', [wasm('.', 'big.wasm')], { 'big.wasm': new Uint8Array(4 * 1024 * 1024 + 1) });
    await addPack('oversize-pack', [wasm('a', 'a.wasm'), wasm('b', 'b.wasm'), wasm('c', 'c.wasm')], {
      'a.wasm': new Uint8Array(3 * 1024 * 1024),
      'b.wasm': new Uint8Array(3 * 1024 * 1024),
      'c.wasm': new Uint8Array(3 * 1024 * 1024),
    });
    await addPack('big-skill', [js('.', 'i.js')], { 'i.js': 'export {};', 'SKILL.md': `---\nname: big\ndescription: big\n---\n${'y'.repeat(17 * 1024)}` });
    await addPack('fifo', [js('.', 'pipe.js')], {});
    execFileSync('mkfifo', [path.join(root, 'node_modules/fifo/pipe.js')]);
    await addPack('dir-entry', [js('.', 'sub')], { 'sub/x.js': 'export {};' });
    await mkdir(path.join(root, 'node_modules', 'huge-json'));
    await writeFile(path.join(root, 'node_modules', 'huge-json', 'package.json'), `{"name":"huge-json","version":"1.0.0","pad":"${'z'.repeat(1024 * 1024)}"}`);
    await addPack('linked-target', [js('.', 'i.js')], { 'i.js': 'export const linked = 1;' });
    await mkdir(path.join(root, 'node_modules', '@scope'), { recursive: true });
    await addPack('@scope/scoped', [js('.', 'i.js')], { 'i.js': 'export {};' });
    await addPack('symlink-loop', [js('.', 'a.js')], {});
    await symlink('b.js', path.join(root, 'node_modules/symlink-loop/a.js'));
    await symlink('a.js', path.join(root, 'node_modules/symlink-loop/b.js'));
    // A pack folder that is itself a symlink (npm link): its files are contained in its real directory.
    await symlink(path.join(root, 'node_modules', 'linked-target'), path.join(root, 'node_modules', 'linked'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('skips a JS file over 256 KB and a WASM file over 4 MB without reading them', async () => {
    const d = await discoverOk(root);
    expect(moduleCodes(pack(d, 'oversize-js'))).toEqual({ 'oversize-js': 'file-too-large', 'oversize-js/small': 'ready' });
    expect(pack(d, 'oversize-js').modules[0]?.reason).toBe('big.js is 256.0 KB, over the 256 KB limit for this kind of file.');
    expect(moduleCodes(pack(d, 'oversize-wasm'))).toEqual({ 'oversize-wasm': 'file-too-large' });
  });

  it('rejects a pack whose files add up to more than 8 MB', async () => {
    const p = pack(await discoverOk(root), 'oversize-pack');
    expect({ status: p.status, code: p.code, reason: p.reason }).toEqual({
      status: 'rejected',
      code: 'pack-too-large',
      reason: 'Reading c.wasm (3 MB) takes the pack past 8 MB.',
    });
  });

  it('warns about an oversized SKILL.md and keeps the module', async () => {
    const p = pack(await discoverOk(root), 'big-skill');
    expect(p.warnings).toEqual([{ code: 'skill-too-large', message: 'SKILL.md is 17.0 KB, over the 16 KB limit; it is ignored.' }]);
    expect(moduleCodes(p)).toEqual({ 'big-skill': 'ready' });
  });

  it('never reads from a FIFO or a directory', async () => {
    const d = await discoverOk(root);
    expect(pack(d, 'fifo').modules[0]?.reason).toBe('pipe.js is not a regular file.');
    expect(moduleCodes(pack(d, 'dir-entry'))).toEqual({ 'dir-entry': 'file-missing' });
  });

  it('refuses a symlink loop', async () => {
    const p = pack(await discoverOk(root), 'symlink-loop');
    expect(p.modules[0]).toMatchObject({ code: 'file-symlink-escape', reason: 'a.js is a symbolic link loop.' });
  });

  it('closes every file it opens', async () => {
    const openFds = async () => (await readdir('/proc/self/fd')).length;
    await discoverOk(root);
    const before = await openFds();
    for (let i = 0; i < 5; i++) await discoverOk(root);
    await discoverOk(path.join(fixtures, 'rules'));
    expect(await openFds()).toBe(before);
  });

  it('rejects an oversized package.json, finds scoped and linked packs', async () => {
    const d = await discoverOk(root);
    expect(pack(d, 'huge-json').code).toBe('package-json-invalid');
    expect(moduleCodes(pack(d, '@scope/scoped'))).toEqual({ '@scope/scoped': 'ready' });
    // The symlinked folder is installed as "linked" but its package.json says "linked-target".
    expect(pack(d, 'linked').code).toBe('manifest-invalid');
    expect(moduleCodes(pack(d, 'linked-target'))).toEqual({ 'linked-target': 'ready' });
  });

  it('looks only at ledger packs in a managed root, and reports ledger packs that are gone', async () => {
    const d = await discoverOk(root, { onlyPacks: new Set(['big-skill', 'gone', '../escape']) });
    expect(d.packs.map((p) => [p.name, p.status, p.code])).toEqual([
      ['big-skill', 'ok', undefined],
      ['gone', 'rejected', 'not-installed'],
    ]);
  });

  it('fails with root-unreadable for a missing root or a file, and is empty for a root without node_modules', async () => {
    expect(await discover(path.join(root, 'nope'))).toEqual({
      ok: false,
      code: 'root-unreadable',
      message: `The install root ${path.join(root, 'nope')} cannot be read (ENOENT).`,
    });
    const file = path.join(root, 'node_modules', 'big-skill', 'i.js');
    expect(await discover(file)).toEqual({ ok: false, code: 'root-unreadable', message: `The install root ${file} is not a directory.` });
    expect((await discoverOk(path.join(root, 'node_modules', '@scope'))).packs).toEqual([]);
  });
});
