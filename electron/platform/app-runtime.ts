// The JavaScript runtime and the npm the app runs child processes with. Users of the packaged app
// usually have no Node.js and no npm on PATH (and on Windows `npm` is `npm.cmd`, which spawn
// cannot start without a shell), so the installer never looks on PATH: it runs the npm staged as
// the `npm` asset with the runtime that is running us — Electron's binary as Node
// (ELECTRON_RUN_AS_NODE=1) in the app, `node` itself under plain Node (dev, tests, the CLI).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { assetPath, backendRoot, BUNDLED } from './assets.ts';

declare const __SANDBOX_PACKS_VERSION__: string | undefined;

export interface AppRuntime {
  /** The executable that runs JavaScript as Node. */
  readonly execPath: string;
  /** Environment entries that make `execPath` behave as Node (empty under plain Node). */
  readonly env: Readonly<Record<string, string>>;
  /** The Node version it runs (Electron's bundled Node in the app). */
  readonly nodeVersion: string;
  /** Set when the runtime is Electron. */
  readonly electronVersion?: string;
}

/** The runtime running this process. */
export function appRuntime(): AppRuntime {
  const electron = process.versions.electron;
  if (electron) return { execPath: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' }, nodeVersion: process.versions.node, electronVersion: electron };
  return { execPath: process.execPath, env: {}, nodeVersion: process.versions.node };
}

/** npm's own entry script inside the staged (or, in dev, installed) npm package. */
export function npmCliPath(npmDir: string = assetPath('npm')): string {
  return path.join(npmDir, 'bin', 'npm-cli.js');
}

const NpmPackageSchema = z.object({ name: z.literal('npm'), version: z.string() }).loose();

/** The shipped npm's version, or undefined when its package.json cannot be read (reported by the runner). */
export function npmVersion(npmDir: string = assetPath('npm')): string | undefined {
  try {
    const parsed = NpmPackageSchema.safeParse(JSON.parse(readFileSync(path.join(npmDir, 'package.json'), 'utf8')));
    return parsed.success ? parsed.data.version : undefined;
  } catch {
    return undefined;
  }
}

/** The app's own version: fixed at bundle time (esbuild define), read from package.json in dev. */
export function appVersion(): string {
  if (typeof __SANDBOX_PACKS_VERSION__ === 'string') return __SANDBOX_PACKS_VERSION__;
  if (BUNDLED) return 'unknown';
  try {
    const parsed = z
      .object({ version: z.string() })
      .loose()
      .safeParse(JSON.parse(readFileSync(path.join(backendRoot(), 'package.json'), 'utf8')));
    return parsed.success ? parsed.data.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface RuntimeVersions {
  readonly app: string;
  readonly npm: string | undefined;
  readonly node: string;
  readonly electron: string | undefined;
  /** Where the npm the installer runs lives. */
  readonly npmPath: string;
  readonly runtimePath: string;
}

/** What `sandbox-packs --version` and diagnostics show. */
export function runtimeVersions(): RuntimeVersions {
  const runtime = appRuntime();
  const dir = assetPath('npm');
  return {
    app: appVersion(),
    npm: npmVersion(dir),
    node: runtime.nodeVersion,
    electron: runtime.electronVersion,
    npmPath: npmCliPath(dir),
    runtimePath: runtime.execPath,
  };
}

/** The lines `sandbox-packs --version` prints. */
export function versionLines(v: RuntimeVersions = runtimeVersions()): string[] {
  const runtime = v.electron ? `Electron ${v.electron} as Node ${v.node}` : `Node ${v.node}`;
  return [`sandbox-packs ${v.app}`, `npm ${v.npm ?? 'missing'} (the app's own, ${v.npmPath})`, `runtime ${runtime} (${v.runtimePath})`];
}
