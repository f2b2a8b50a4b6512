// electron-builder.yml, read and validated by electron-builder's own loader and schema (no
// packaging: that needs the Electron runtime), and held to the asset registry: every asset that
// must live outside the asar archive is listed in asarUnpack.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
// electron-builder's own config loader and validator (deep paths of its packages: an upgrade that
// moves them fails this test loudly, which is the point).
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util/out/DebugLogger.js';
import { ASSETS } from '../electron/platform/assets.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Config {
  appId: string;
  asar: boolean;
  asarUnpack: string[];
  files: { filter: string[] }[];
  directories: { app: string; output: string };
  linux: { target: string[] };
  mac: { target: string[] };
  win: { target: string[] };
}

async function load(): Promise<Config> {
  const config = await getConfig(ROOT, path.join(ROOT, 'electron-builder.yml'), null);
  await validateConfiguration(config, new DebugLogger(false));
  return config as unknown as Config;
}

function covered(file: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => p === file || (p.endsWith('/**') && file.startsWith(`${p.slice(0, -3)}/`)));
}

describe('electron-builder.yml', () => {
  it('passes electron-builder\'s own schema validation', async () => {
    const config = await load();
    expect(config.appId).toBe('ai.nodetool.sandbox-packs');
    expect(config.directories).toMatchObject({ app: 'dist/app', output: 'dist/packages' });
  });

  it('targets Linux (AppImage and dir), macOS and Windows, with asar', async () => {
    const config = await load();
    expect(config.asar).toBe(true);
    expect(config.linux.target).toEqual(['AppImage', 'dir']);
    expect(config.mac.target.length).toBeGreaterThan(0);
    expect(config.win.target.length).toBeGreaterThan(0);
    // Normalized by the loader into one filter set.
    expect(config.files).toEqual([{ filter: ['package.json', 'backend/**/*'] }]);
  });

  it('unpacks every asset the registry marks as read outside the archive', async () => {
    const config = await load();
    const missing = ASSETS.filter((a) => a.unpacked && !covered(`backend/${a.staged}`, config.asarUnpack)).map((a) => a.id);
    expect(missing).toEqual([]);
    const needless = ASSETS.filter((a) => !a.unpacked && covered(`backend/${a.staged}`, config.asarUnpack)).map((a) => a.id);
    expect(needless).toEqual([]);
  });
});
