// The only place the installer starts npm. npm always runs as a child process with an
// environment scrubbed of npm_config_* variables (an `npm run …` parent, or a hostile shell,
// would otherwise steer it: env config outranks every npmrc) and with a userconfig we own, so
// the user's ~/.npmrc cannot weaken an install (on these machines it sets
// omit-lockfile-registry-resolved=true, which would drop `resolved` from the lockfile).

import { spawn, type ChildProcess } from 'node:child_process';

export interface NpmRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface NpmRunOptions {
  readonly cwd: string;
  /** Extra environment entries (never npm_config_*: those are settings and go on argv). */
  readonly env?: Readonly<Record<string, string>>;
  /** Called with the child as soon as it exists (tests use it to kill an install mid-way). */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** The parent's environment minus every variable npm would read as configuration. */
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

export function runNpm(args: readonly string[], options: NpmRunOptions): Promise<NpmRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', [...args], {
      cwd: options.cwd,
      env: { ...cleanNpmEnv(), ...(options.env ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    options.onSpawn?.(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** The last meaningful npm error lines, for a message a user can read. */
export function npmErrorSummary(run: NpmRun): string {
  const lines = run.stderr
    .split('\n')
    .map((l) => l.replace(/^npm (?:error|ERR!)\s?/, '').trim())
    .filter((l) => l !== '' && !/^A complete log of this run/.test(l) && !/^\s*at /.test(l) && !/debug-0\.log$/.test(l));
  const text = lines.slice(0, 6).join(' ');
  if (text) return text.length > 600 ? `${text.slice(0, 600)}…` : text;
  return run.signal ? `npm was stopped by ${run.signal}` : `npm exited with code ${String(run.code)}`;
}
