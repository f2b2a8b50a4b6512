// A real npm registry for tests and benches: Verdaccio in a child process on 127.0.0.1 with a
// port the OS picks, a temp storage dir, anonymous read, publish for one test user, and an
// uplink to the public npm registry for real dependencies. Names the harness publishes itself
// (our fixture scope, our own packs, and `localPackages`) have no uplink, so a publish never
// collides with a public package and the registry serves exactly what is in its storage — which
// is what lets a test swap a stored tarball to play a registry that changes an artifact.

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmErrorSummary, runNpm } from '../install/npm-runner.ts';

const CHILD = fileURLToPath(new URL('./verdaccio-child.mjs', import.meta.url));

/** Name patterns served only from local storage (never proxied to the public registry). */
export const DEFAULT_LOCAL_PACKAGES = ['@sp-fixture/*', '@nodetool-ai/*', 'sandbox-*', 'geo'] as const;

export interface RegistryOptions {
  /** Extra Verdaccio package patterns that must stay local-only. */
  readonly localPackages?: readonly string[];
  /** Set false to run without the public uplink (fully offline registry). */
  readonly uplink?: boolean;
}

export interface TestRegistry {
  /** Base URL with a trailing slash, e.g. http://127.0.0.1:41234/ */
  readonly url: string;
  /** Verdaccio's storage directory (tests may edit it to play a misbehaving registry). */
  readonly storageDir: string;
  /** The Verdaccio child process id (for leak checks). */
  readonly pid: number;
  /** A userconfig holding the publish token, for npm commands aimed at this registry. */
  readonly userconfig: string;
  /** `npm publish DIR` (scripts ignored); `tag` defaults to latest. */
  publish(dir: string, options?: { tag?: string }): Promise<void>;
  /** Pack DIR and overwrite the stored tarball of name@version with it, leaving metadata as it was. */
  replaceTarball(name: string, version: string, dir: string): Promise<void>;
  stop(): Promise<void>;
}

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

function verdaccioConfig(root: string, options: RegistryOptions): object {
  const local = [...DEFAULT_LOCAL_PACKAGES, ...(options.localPackages ?? [])];
  const packages: Record<string, object> = {};
  for (const pattern of local) packages[pattern] = { access: '$all', publish: '$authenticated', unpublish: '$authenticated' };
  packages['**'] = {
    access: '$all',
    publish: '$authenticated',
    unpublish: '$authenticated',
    ...(options.uplink === false ? {} : { proxy: 'npmjs' }),
  };
  return {
    storage: path.join(root, 'storage'),
    auth: { htpasswd: { file: path.join(root, 'htpasswd'), max_users: 1000 } },
    uplinks: options.uplink === false ? {} : { npmjs: { url: 'https://registry.npmjs.org/', timeout: '30s', maxage: '30m' } },
    packages,
    server: { keepAliveTimeout: 5 },
    web: { enable: false },
    log: { type: 'stdout', format: 'json', level: 'error' },
  };
}

async function readPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  let buffer = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new RegistryError(`Verdaccio did not start within ${timeoutMs} ms. ${stderr.slice(-500)}`)), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new RegistryError(`Verdaccio exited with code ${String(code)} before listening. ${stderr.slice(-500)}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (const line of buffer.split('\n')) {
        const match = /^\{"port":(\d+)\}$/.exec(line.trim());
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(Number(match[1]));
          return;
        }
      }
    });
  });
}

async function createUser(url: string): Promise<string> {
  const name = 'sp-tester';
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password: 'sp-tester-password', type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const body = (await response.json()) as { token?: unknown };
  if (!response.ok || typeof body.token !== 'string') throw new RegistryError(`Could not create the test user: HTTP ${response.status}`);
  return body.token;
}

function storedTarballPath(storageDir: string, name: string, version: string): string {
  const base = name.startsWith('@') ? (name.split('/')[1] ?? name) : name;
  return path.join(storageDir, ...name.split('/'), `${base}-${version}.tgz`);
}

export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'sp-verdaccio-'));
  let child: ChildProcess | undefined;
  try {
    const configPath = path.join(root, 'config.yaml');
    // JSON is YAML, and it spares us a YAML writer.
    await writeFile(configPath, JSON.stringify(verdaccioConfig(root, options), null, 2));
    child = spawn(process.execPath, [CHILD, configPath], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    const port = await readPort(child, 60_000);
    const url = `http://127.0.0.1:${port}/`;
    const token = await createUser(url);
    const userconfig = path.join(root, 'npmrc');
    await writeFile(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\naudit=false\nfund=false\nupdate-notifier=false\n`);
    const cache = path.join(root, 'npm-cache');
    const work = path.join(root, 'work');
    await mkdir(work, { recursive: true });
    const npmBase = ['--registry', url, '--userconfig', userconfig, '--cache', cache, '--ignore-scripts'];
    const running = child;
    let stopped = false;

    return {
      url,
      pid: running.pid ?? -1,
      storageDir: path.join(root, 'storage'),
      userconfig,
      async publish(dir, publishOptions) {
        const tag = publishOptions?.tag ?? 'latest';
        const run = await runNpm(['publish', path.resolve(dir), '--tag', tag, '--provenance=false', ...npmBase], { cwd: work });
        if (run.code !== 0) throw new RegistryError(`npm publish ${dir} failed: ${npmErrorSummary(run)}`);
      },
      async replaceTarball(name, version, dir) {
        const dest = await mkdtemp(path.join(work, 'pack-'));
        try {
          const run = await runNpm(['pack', path.resolve(dir), '--pack-destination', dest, ...npmBase], { cwd: work });
          if (run.code !== 0) throw new RegistryError(`npm pack ${dir} failed: ${npmErrorSummary(run)}`);
          const [tgz] = (await readdir(dest)).filter((f) => f.endsWith('.tgz'));
          if (!tgz) throw new RegistryError(`npm pack ${dir} produced no tarball`);
          await copyFile(path.join(dest, tgz), storedTarballPath(path.join(root, 'storage'), name, version));
        } finally {
          await rm(dest, { recursive: true, force: true });
        }
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          if (running.exitCode === null && running.signalCode === null) {
            const exited = once(running, 'exit');
            running.stdin?.end();
            const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
            await exited;
            clearTimeout(timer);
          }
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    if (child && child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
