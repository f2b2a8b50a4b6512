// The managed install root as npm sees it: its package.json, its lockfile, its own npm cache and
// userconfig, and the exact npm argv every operation uses. Settings go on argv (the highest
// precedence npm has) and the userconfig is a file we own, so neither ~/.npmrc nor npm_config_*
// variables can turn scripts back on, drop `resolved`/`integrity` from the lockfile, or point npm
// at another registry.

import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseWith } from '../../shared/protocol/parse.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { createFileDurably, writeFileDurably } from '../platform/durable-file.ts';
import type { InstallResult } from './install-codes.ts';

export const ROOT_PACKAGE_NAME = 'sandbox-packs-install-root';
export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

export const rootPaths = (root: string) => ({
  packageJson: path.join(root, 'package.json'),
  lockfile: path.join(root, 'package-lock.json'),
  cache: path.join(root, '.npm-cache'),
  userconfig: path.join(root, '.sandbox-packs-npmrc'),
  nodeModules: path.join(root, 'node_modules'),
});

/**
 * How long npm waits for one registry request (headers and body) before it gives up on it:
 * npm's own default is 5 minutes, so a registry that accepts connections and never answers held
 * an install about 10 minutes (two tries). With 30 s and one retry, such an install answers
 * `registry-unreachable` within about 65 s, while a pack tarball (well under the 8 MB a pack may
 * ship) still has 30 s to arrive. Installer option `fetchTimeoutMs` changes it (tests shorten it).
 */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

/** Settings every npm call in the root carries. */
export function npmBaseArgs(root: string, registry: string, fetchTimeoutMs: number = DEFAULT_FETCH_TIMEOUT_MS): string[] {
  const p = rootPaths(root);
  return [
    '--registry',
    registry,
    '--userconfig',
    p.userconfig,
    '--cache',
    p.cache,
    '--omit-lockfile-registry-resolved=false',
    '--package-lock=true',
    '--audit=false',
    '--fund=false',
    '--update-notifier=false',
    '--save-exact=true',
    '--install-links=false',
    '--workspaces=false',
    '--loglevel=warn',
    '--color=false',
    '--progress=false',
    // npm's defaults (2 retries, 10 s to 60 s apart) make an unreachable registry take about
    // 80 s to report (measured); one retry a few seconds later still rides out a blip.
    '--fetch-retries=1',
    '--fetch-retry-mintimeout=2000',
    '--fetch-retry-maxtimeout=5000',
    `--fetch-timeout=${fetchTimeoutMs}`,
  ];
}

/** Flags that keep an install from running any code at all. */
export const NO_SCRIPTS = ['--ignore-scripts=true', '--foreground-scripts=false'] as const;

const RootPackageJsonSchema = z.looseObject({
  name: z.string().optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  allowScripts: z.record(z.string(), z.boolean()).optional(),
});
export type RootPackageJson = z.infer<typeof RootPackageJsonSchema>;

const USERCONFIG_TEXT =
  '# Owned by sandbox-packs: stands in for ~/.npmrc so user settings cannot weaken installs.\nignore-scripts=true\nomit-lockfile-registry-resolved=false\naudit=false\nfund=false\n';

/** Create the root's files if missing. Idempotent; writes nothing when they are already in place. */
export async function ensureRoot(root: string): Promise<void> {
  const p = rootPaths(root);
  await mkdir(root, { recursive: true });
  await createFileDurably(
    p.packageJson,
    `${JSON.stringify({ name: ROOT_PACKAGE_NAME, private: true, description: 'Managed by sandbox-packs; edit with the sandbox-packs CLI or app.', dependencies: {} }, null, 2)}\n`,
  );
  let current: string | undefined;
  try {
    current = await readFile(p.userconfig, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (current !== USERCONFIG_TEXT) await writeFileDurably(p.userconfig, USERCONFIG_TEXT);
}

export async function readRootPackageJson(root: string): Promise<InstallResult<RootPackageJson>> {
  const file = rootPaths(root).packageJson;
  try {
    return parseWith(RootPackageJsonSchema, JSON.parse(await readFile(file, 'utf8')), file);
  } catch (error) {
    return fail('root-unreadable', `${file} could not be read: ${(error as Error).message}`);
  }
}

/**
 * Rewrite the root's `allowScripts` policy: exactly the given keys are allowed and the denied
 * keys are denied (keys in npm's form per source: script-policy.ts). npm 11 `rebuild` runs
 * unapproved scripts with only a warning, so the rebuild also passes --strict-allow-scripts
 * (unreviewed → hard error) and names its targets; the explicit denials keep the other packs'
 * scripts silently skipped rather than failing the strict check.
 */
export async function writeAllowScripts(root: string, allowed: readonly string[], denied: readonly string[]): Promise<InstallResult<void>> {
  const read = await readRootPackageJson(root);
  if (!read.ok) return read;
  const policy: Record<string, boolean> = {};
  for (const name of denied) policy[name] = false;
  for (const pin of allowed) policy[pin] = true;
  // Durable: a process killed mid-write must not leave npm's package.json cut short.
  await writeFileDurably(rootPaths(root).packageJson, `${JSON.stringify({ ...read.value, allowScripts: policy }, null, 2)}\n`);
  return ok(undefined);
}

const LockEntrySchema = z.looseObject({
  version: z.string().optional(),
  resolved: z.string().optional(),
  integrity: z.string().optional(),
  hasInstallScript: z.boolean().optional(),
  link: z.boolean().optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  optionalDependencies: z.record(z.string(), z.string()).optional(),
  peerDependencies: z.record(z.string(), z.string()).optional(),
});
export type LockEntry = z.infer<typeof LockEntrySchema>;
const LockfileSchema = z.looseObject({ lockfileVersion: z.number(), packages: z.record(z.string(), LockEntrySchema) });
export type Lockfile = z.infer<typeof LockfileSchema>;

export async function readLockfile(root: string): Promise<InstallResult<Lockfile | undefined>> {
  const file = rootPaths(root).lockfile;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail('root-unreadable', `${file} could not be read: ${(error as Error).message}`);
  }
  try {
    return parseWith(LockfileSchema, JSON.parse(text), file);
  } catch {
    return fail('invalid-data', `${file}: not valid JSON`);
  }
}
