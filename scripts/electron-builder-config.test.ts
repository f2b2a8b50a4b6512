// electron-builder.yml, read and validated by electron-builder's own loader and schema (no
// packaging: that needs the Electron runtime), and held to the asset registry: every asset that
// must live outside the asar archive is listed in asarUnpack.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// electron-builder's own config loader and validator (deep paths of its packages: an upgrade that
// moves them fails this test loudly, which is the point).
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import * as fileMatcher from 'app-builder-lib/out/fileMatcher.js';
import type { FileMatcher } from 'app-builder-lib/out/fileMatcher.js';
import { DebugLogger } from 'builder-util/out/DebugLogger.js';
import { ASSETS } from '../electron/platform/assets.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Config {
  appId: string;
  asar: boolean;
  asarUnpack: string[];
  files: ({ filter: string[] } | { from: string; to: string; filter: string[] })[];
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
  it("passes electron-builder's own schema validation", async () => {
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
    expect(config.files).toEqual([
      { filter: ['package.json', 'backend/**/*', '!backend/vendor/npm{,/**/*}'] },
      { from: 'backend/vendor', to: 'backend/vendor', filter: ['npm/**/*'] },
    ]);
  });

  it('unpacks every asset the registry marks as read outside the archive', async () => {
    const config = await load();
    const missing = ASSETS.filter((a) => a.unpacked && !covered(`backend/${a.staged}`, config.asarUnpack)).map((a) => a.id);
    expect(missing).toEqual([]);
    const needless = ASSETS.filter((a) => !a.unpacked && covered(`backend/${a.staged}`, config.asarUnpack)).map((a) => a.id);
    expect(needless).toEqual([]);
  });
});

type MainFileMatchers = (
  appDir: string,
  destination: string,
  expand: (s: string) => string,
  platformOptions: object,
  packager: unknown,
  outDir: string,
  electronCompile: boolean,
) => FileMatcher[] | null;
// electron-builder's own function for the app's file sets; marked @internal, so not in its .d.ts.
const { getMainFileMatchers } = fileMatcher as unknown as { getMainFileMatchers: MainFileMatchers };

/** The file sets electron-builder copies the app with, its default exclusions included. */
async function fileSets(): Promise<FileMatcher[]> {
  const config = await load();
  const packager = { info: { isPrepackedAppAsar: false, config, projectDir: ROOT, buildResourcesDir: 'build', debugLogger: new DebugLogger(false) } };
  const matchers = getMainFileMatchers(path.join(ROOT, 'dist', 'app'), '/packed', (s) => s, {}, packager, path.join(ROOT, 'dist', 'packages'), false);
  return matchers ?? [];
}

const filters = new Map<FileMatcher, ReturnType<FileMatcher['createFilter']>>();

/** How many file sets copy `rel` (relative to the app dir): electron-builder walks down, filtering each directory then the file. */
function copiedBy(matchers: FileMatcher[], rel: string): number {
  const stat = (dir: boolean) => ({ isDirectory: () => dir, isFile: () => !dir }) as never;
  const file = path.join(ROOT, 'dist', 'app', ...rel.split('/'));
  return matchers.filter((m) => {
    if (!file.startsWith(`${m.from}${path.sep}`)) return false;
    const filter = filters.get(m) ?? filters.set(m, m.createFilter()).get(m)!;
    const parts = path.relative(m.from, file).split(path.sep);
    for (let i = 1; i < parts.length; i++) if (!filter(path.join(m.from, ...parts.slice(0, i)), stat(true))) return false;
    return filter(file, stat(false));
  }).length;
}

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name), base) : e.isFile() ? [path.relative(base, path.join(dir, e.name)).split(path.sep).join('/')] : [],
  );
}

describe('electron-builder file sets', () => {
  it("pack every file of the staged npm once, node_modules and node-gyp's .cc files included", async () => {
    const matchers = await fileSets();
    const npm = ASSETS.find((a) => a.id === 'npm');
    expect(npm?.staged).toBe('vendor/npm');
    const excluded = ['docs/', 'man/'];
    const files = filesUnder(path.join(ROOT, 'node_modules', 'npm')).filter((f) => !excluded.some((e) => f.startsWith(e)));
    expect(files).toContain('node_modules/node-gyp/src/win_delay_load_hook.cc');
    const wrong = files.filter((f) => copiedBy(matchers, `backend/vendor/npm/${f}`) !== 1);
    expect(wrong).toEqual([]);
  });

  it("keep electron-builder's default exclusions for the rest of the backend", async () => {
    const matchers = await fileSets();
    expect(copiedBy(matchers, 'backend/cli.mjs')).toBe(1);
    expect(copiedBy(matchers, 'backend/_sandbox/geo/pack.tgz')).toBe(1);
    expect(copiedBy(matchers, 'backend/vendor/esbuild/lib/main.js')).toBe(1);
    expect(copiedBy(matchers, 'backend/stray/x.cc')).toBe(0);
    expect(copiedBy(matchers, 'backend/stray/.gitignore')).toBe(0);
  });
});
