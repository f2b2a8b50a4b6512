// The only place the installer starts npm. It is the npm the app ships (the `npm` asset, pinned in
// package.json), run by the app's own runtime (electron/platform/app-runtime.ts) — never `npm`
// from PATH, never through a shell — so a machine without Node.js or npm can install packs, and
// the npm a user happens to have cannot change what an install does. Trusted install scripts
// find `node` through a shim directory first on their PATH (node-shim.ts).
//
// Invariants: neither the parent's npm_config_* variables nor the user's ~/.npmrc reach npm
// (`cleanNpmEnv`, and a userconfig we own), and a runtime or npm that cannot be started answers
// `failure` with a sentence, never a throw (`runNpm`).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fail } from '../../shared/protocol/result.ts';
import { appRuntime, npmCliPath, type AppRuntime } from '../platform/app-runtime.ts';
import { createNodeShim, withFirstOnPath, type NodeShim } from './node-shim.ts';
import type { InstallFailure } from './install-codes.ts';

export interface NpmRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when npm could not be started at all (code and signal are then null). */
  readonly failure?: InstallFailure;
  /** The caller's signal stopped npm (or came before it started). */
  readonly cancelled?: true;
}

export interface NpmRunOptions {
  readonly cwd: string;
  /** Extra environment entries (never npm_config_*: those are settings and go on argv). */
  readonly env?: Readonly<Record<string, string>>;
  /** Called with the child as soon as it exists (tests use it to kill an install mid-way). */
  readonly onSpawn?: (child: ChildProcess) => void;
  /** The runtime to run npm with; the one running us by default (tests point it elsewhere). */
  readonly runtime?: Pick<AppRuntime, 'execPath' | 'env'>;
  /** npm's entry script; the staged `npm` asset by default. */
  readonly npmCli?: string;
  /** Stops npm (SIGTERM, then SIGKILL after NPM_KILL_GRACE_MS); the run answers `cancelled`. */
  readonly signal?: AbortSignal;
}

/** How long npm gets to exit after SIGTERM before it is killed outright. */
export const NPM_KILL_GRACE_MS = 3000;

/**
 * The parent's environment minus every variable npm would read as configuration. npm always runs
 * with an environment scrubbed of npm_config_* variables (an `npm run …` parent, or a hostile
 * shell, would otherwise steer it: env config outranks every npmrc) and with a userconfig we own
 * (npm-root.ts), so the user's ~/.npmrc cannot weaken an install (on these machines it sets
 * omit-lockfile-registry-resolved=true, which would drop `resolved` from the lockfile).
 */
export function cleanNpmEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_config_') || lower.startsWith('npm_package_') || lower.startsWith('npm_lifecycle_')) continue;
    if (lower === 'npm_command' || lower === 'npm_execpath' || lower === 'npm_node_execpath' || lower === 'init_cwd') continue;
    env[key] = value;
  }
  env.NO_UPDATE_NOTIFIER = '1';
  return env;
}

/** The sentences a user reads when npm cannot be started (tested word for word). */
export const NPM_LAUNCH_MESSAGES = {
  npmMissing: (cli: string) =>
    `The npm that ships with Sandbox Packs is missing (${cli}); reinstall Sandbox Packs (in a development checkout, run \`npm install\`).`,
  runtimeMissing: (runtime: string) => `The runtime Sandbox Packs runs npm with is missing (${runtime}); reinstall Sandbox Packs.`,
  refused: (runtime: string, reason: string) =>
    `The system refused to start ${runtime} to run npm (${reason}); check that security software lets Sandbox Packs start programs, or reinstall it.`,
  noShim: (reason: string) =>
    `Sandbox Packs could not write the node shim for install scripts into the temporary folder (${reason}); check that the temporary folder is writable and has free space.`,
} as const;

function launchFailure(message: string): NpmRun {
  return { code: null, signal: null, stdout: '', stderr: '', failure: fail('npm-unavailable', message) };
}

/**
 * Runs the shipped npm with `args`. A runtime or npm that cannot be started is an expected failure
 * (a damaged install, security software): the run answers `failure` with a sentence saying what to
 * do (NPM_LAUNCH_MESSAGES), and never throws.
 */
export async function runNpm(args: readonly string[], options: NpmRunOptions): Promise<NpmRun> {
  if (options.signal?.aborted) return { code: null, signal: null, stdout: '', stderr: '', cancelled: true };
  const runtime = options.runtime ?? appRuntime();
  const cli = options.npmCli ?? npmCliPath();
  // The runtime is not checked here: under Node's permission model its file may be unreadable to
  // us yet executable; a missing one is spawn's ENOENT below.
  if (!existsSync(cli)) return launchFailure(NPM_LAUNCH_MESSAGES.npmMissing(cli));
  let shim: NodeShim;
  try {
    shim = await createNodeShim(runtime);
  } catch (error) {
    return launchFailure(NPM_LAUNCH_MESSAGES.noShim((error as Error).message));
  }
  try {
    // options.env may set PATH (tests do); the shim goes in front of whatever PATH ends up being.
    const env = withFirstOnPath({ ...cleanNpmEnv(), ...(options.env ?? {}), ...runtime.env }, shim.dir);
    return await new Promise<NpmRun>((resolve) => {
      const child = spawn(runtime.execPath, [cli, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;
      const stop = (): void => {
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), NPM_KILL_GRACE_MS);
      };
      options.signal?.addEventListener('abort', stop, { once: true });
      child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (error: NodeJS.ErrnoException) => {
        // With a pid the child started (a later error is a failed kill); its close still comes.
        if (settled || child.pid !== undefined) return;
        settled = true;
        resolve(
          launchFailure(
            error.code === 'ENOENT'
              ? NPM_LAUNCH_MESSAGES.runtimeMissing(runtime.execPath)
              : NPM_LAUNCH_MESSAGES.refused(runtime.execPath, error.code ?? error.message),
          ),
        );
      });
      child.once('close', (code, signal) => {
        clearTimeout(killTimer);
        options.signal?.removeEventListener('abort', stop);
        if (settled) return;
        settled = true;
        const cancelled = options.signal?.aborted ? { cancelled: true as const } : {};
        resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ...cancelled });
      });
      // After the listeners: a caller that kills the child at once must still get its close.
      if (child.pid !== undefined) options.onSpawn?.(child);
    });
  } finally {
    await shim.dispose();
  }
}

/** The last meaningful npm error lines, for a message a user can read. */
export function npmErrorSummary(run: NpmRun): string {
  if (run.failure) return run.failure.message;
  const lines = run.stderr
    .split('\n')
    .map((l) => l.replace(/^npm (?:error|ERR!)\s?/, '').trim())
    .filter((l) => l !== '' && !/^A complete log of this run/.test(l) && !/^\s*at /.test(l) && !/debug-0\.log$/.test(l));
  const text = lines.slice(0, 6).join(' ');
  if (text) return text.length > 600 ? `${text.slice(0, 600)}…` : text;
  return run.signal ? `npm was stopped by ${run.signal}` : `npm exited with code ${String(run.code)}`;
}
