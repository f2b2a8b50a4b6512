// A `node` for the install scripts of trusted packs. Real install scripts say `node …`
// (node-gyp, prebuild-install, a package's own install.js), and the machines the app runs on
// often have no Node.js at all. npm runs with the app's runtime, and each npm run gets a fresh
// directory holding `node` (POSIX shell script) and `node.cmd` (Windows) that start that same
// runtime as Node; the runner puts it first on the scripts' PATH. The directory is made with
// mkdtemp (private, unpredictable name) for one run and removed after it.

import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppRuntime } from '../platform/app-runtime.ts';

export interface NodeShim {
  /** The directory to put first on PATH. */
  readonly dir: string;
  dispose(): Promise<void>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkedEnv(runtime: Pick<AppRuntime, 'env'>): [string, string][] {
  const entries = Object.entries(runtime.env);
  // Names and values come from our own code; anything a shell could misread is a bug here.
  for (const [name, value] of entries) {
    if (!ENV_NAME.test(name) || /[\r\n"%']/.test(value)) throw new Error(`the runtime environment entry ${name} cannot be written into the node shim`);
  }
  return entries;
}

/** The POSIX `node`: a /bin/sh script (absolute, so it works with any PATH) that execs the runtime. */
export function posixShim(runtime: Pick<AppRuntime, 'execPath' | 'env'>): string {
  const quoted = `'${runtime.execPath.replaceAll("'", "'\\''")}'`;
  const env = checkedEnv(runtime)
    .map(([name, value]) => `${name}='${value}'\nexport ${name}\n`)
    .join('');
  return `#!/bin/sh\n# Written by Sandbox Packs for one npm run: the app's own runtime, as Node.\n${env}exec ${quoted} "$@"\n`;
}

/** The Windows `node.cmd`, found through PATHEXT by cmd.exe, which npm runs scripts with there. */
export function cmdShim(runtime: Pick<AppRuntime, 'execPath' | 'env'>): string {
  if (/["\r\n]/.test(runtime.execPath)) throw new Error(`the runtime path ${runtime.execPath} cannot be written into node.cmd`);
  const env = checkedEnv(runtime)
    .map(([name, value]) => `SET "${name}=${value}"\r\n`)
    .join('');
  // %% keeps a literal % in the path from being read as a variable.
  return `@ECHO OFF\r\nREM Written by Sandbox Packs for one npm run: the app's own runtime, as Node.\r\nSETLOCAL\r\n${env}"${runtime.execPath.replaceAll('%', '%%')}" %*\r\nEXIT /B %ERRORLEVEL%\r\n`;
}

/** A fresh shim directory for one npm run; the caller disposes it when the run ends. */
export async function createNodeShim(runtime: Pick<AppRuntime, 'execPath' | 'env'>, base: string = os.tmpdir()): Promise<NodeShim> {
  const dir = await mkdtemp(path.join(base, 'sandbox-packs-node-'));
  try {
    const posix = path.join(dir, 'node');
    await writeFile(posix, posixShim(runtime), { mode: 0o755 });
    await chmod(posix, 0o755);
    await writeFile(path.join(dir, 'node.cmd'), cmdShim(runtime));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * `env` with `dir` first on its PATH, under whatever case the platform spells the key (Windows:
 * Path). Where two spellings are present (a caller's PATH over an inherited Path), the later entry
 * wins, as it would in an object spread on a case-sensitive platform.
 */
export function withFirstOnPath(env: Readonly<Record<string, string>>, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  let key = 'PATH';
  let rest = '';
  for (const [name, value] of Object.entries(env)) {
    if (name.toUpperCase() === 'PATH') {
      key = name;
      rest = value;
    } else out[name] = value;
  }
  out[key] = rest ? `${dir}${path.delimiter}${rest}` : dir;
  return out;
}
