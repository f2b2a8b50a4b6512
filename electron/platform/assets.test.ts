// The registry's resolver in both layouts, and the registry against the tree: every dev source
// that is not a build output exists, and every shipped pack is the package the registry names.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ASSETS,
  BUNDLED,
  SHIPPED_PACKS,
  UnknownAssetError,
  assetPath,
  assetSpec,
  assetUrl,
  backendRoot,
  esbuildBinary,
  outsideAsar,
  type AssetId,
} from './assets.ts';

const repo = path.resolve(import.meta.dirname, '..', '..');

describe('asset registry', () => {
  it('runs in the dev layout here, rooted at the repository', () => {
    expect(BUNDLED).toBe(false);
    expect(backendRoot()).toBe(repo);
  });

  it('resolves dev paths from the repo and from installed packages', () => {
    expect(assetPath('sandbox-worker')).toBe(path.join(repo, 'electron/runtime/sandbox/sandbox-worker.ts'));
    expect(assetPath('probe-worker')).toBe(path.join(repo, 'electron/compiler/probe-worker-boot.mjs'));
    expect(assetPath('quickjs-ng-wasm')).toBe(path.join(repo, 'node_modules/@jitl/quickjs-ng-wasmfile-release-sync/dist/emscripten-module.wasm'));
    expect(assetUrl('wasm-worker').href).toBe(new URL('../runtime/wasm/wasm-worker.mjs', import.meta.url).href);
  });

  it('resolves staged paths, moving files other processes or workers read out of the asar archive', () => {
    const root = '/opt/Sandbox Packs/resources/app.asar/backend';
    expect(assetPath('sandbox-worker', root, true)).toBe('/opt/Sandbox Packs/resources/app.asar.unpacked/backend/sandbox-worker.mjs');
    expect(assetPath('pack:geo' as AssetId, root, true)).toBe('/opt/Sandbox Packs/resources/app.asar.unpacked/backend/_sandbox/geo/pack.tgz');
    expect(assetPath('renderer', root, true)).toBe('/opt/Sandbox Packs/resources/app.asar/backend/renderer');
    expect(assetPath('registry-index', '/tmp/backend', true)).toBe('/tmp/backend/registry/index.json');
    expect(outsideAsar('C:\\Apps\\SP\\resources\\app.asar\\backend\\x.mjs')).toBe('C:\\Apps\\SP\\resources\\app.asar.unpacked\\backend\\x.mjs');
    expect(outsideAsar('/home/me/app.asar.d/x')).toBe('/home/me/app.asar.d/x');
  });

  it('throws a named error for an id nobody registered', () => {
    expect(() => assetSpec('nope' as AssetId)).toThrow(UnknownAssetError);
    expect(() => assetSpec('nope' as AssetId)).toThrow('no asset is registered as "nope"');
  });

  it('has unique ids and staged paths', () => {
    expect(new Set(ASSETS.map((a) => a.id)).size).toBe(ASSETS.length);
    expect(new Set(ASSETS.map((a) => a.staged)).size).toBe(ASSETS.length);
  });

  it('points at sources that exist (build outputs and pack tarballs are made by the build)', () => {
    const built = new Set<string>(['renderer', 'preload', ...SHIPPED_PACKS.map((p) => `pack:${p.dir}`)]);
    const missing = ASSETS.filter((a) => !built.has(a.id)).filter((a) => {
      const source = 'bundleEntry' in a && a.bundleEntry ? path.join(repo, a.bundleEntry) : assetPath(a.id);
      return !existsSync(source) || ('files' in a && a.files.some((f) => !existsSync(path.join(source, f))));
    });
    expect(missing.map((a) => a.id)).toEqual([]);
  });

  it('names each shipped pack by the name in its package.json', () => {
    for (const pack of SHIPPED_PACKS) {
      const manifest = JSON.parse(readFileSync(path.join(repo, 'packs', pack.dir, 'package.json'), 'utf8')) as { name: string };
      expect(manifest.name).toBe(pack.name);
    }
  });

  it('knows where esbuild keeps its binary on each platform', () => {
    expect(esbuildBinary('linux', 'x64')).toEqual({ pkg: '@esbuild/linux-x64', file: 'bin/esbuild' });
    expect(esbuildBinary('darwin', 'arm64')).toEqual({ pkg: '@esbuild/darwin-arm64', file: 'bin/esbuild' });
    expect(esbuildBinary('win32', 'x64')).toEqual({ pkg: '@esbuild/win32-x64', file: 'esbuild.exe' });
  });
});
