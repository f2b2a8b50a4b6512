// Test support for the web host suites: a temp data dir shaped like a real install root (copied
// from fixtures), a tiny static build, and raw HTTP requests through node:http — fetch refuses to
// send a forged Host header or a body without Content-Type, which is exactly what an attacker does.

import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAppServices, type AppServices } from '../services/app-services.ts';
import { startWebHost, type WebHost, type WebHostOptions } from '../server/web-host.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
}

export async function tempDir(prefix: string): Promise<TempDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `sandbox-packs-${prefix}-`));
  return { path: dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A data dir holding copies of fixture install roots' node_modules (plain tree, no ledger). */
export async function fixtureDataDir(...packDirs: string[]): Promise<TempDir> {
  const dir = await tempDir('data');
  for (const pack of packDirs) {
    const relative = path.relative(path.join(REPO_ROOT, 'fixtures'), pack).split(path.sep);
    const inNodeModules = relative.slice(relative.indexOf('node_modules') + 1).join(path.sep);
    await cp(pack, path.join(dir.path, 'node_modules', inNodeModules), { recursive: true, verbatimSymlinks: true });
  }
  return dir;
}

/**
 * The app's services over `dataDir`, behind a web host on a free port serving `staticDir`: what
 * every web-host suite starts from. `catalog` replaces the services' own delivery catalog (the
 * parity suites serve kernel fixtures); `registryIndex` replaces the bundled index of packs to
 * install. The caller closes the host, then disposes the services.
 */
export async function startAppHost(
  dataDir: string,
  staticDir: string,
  catalog?: WebHostOptions['catalog'],
  registryIndex?: string,
): Promise<{ services: AppServices; host: WebHost }> {
  const created = await createAppServices({ dataDir, ...(registryIndex ? { registryIndex } : {}) });
  if (!created.ok) throw new Error(created.message);
  const services = created.value;
  const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: catalog ?? services.catalog, staticDir, port: 0 });
  return { services, host };
}

/** A web host over copies of fixture packs and a minimal static build, and how to put it all away. */
export interface FixtureHost {
  readonly data: TempDir;
  readonly site: TempDir;
  readonly services: AppServices;
  readonly host: WebHost;
  /** Closes the host, disposes the services, removes the data dir and the build. */
  close(): Promise<void>;
}

/**
 * What the HTTP suites start from: `fixtureDataDir(...packDirs)`, `staticBuild()` (which
 * `addToSite` may add files to before the host starts) and `startAppHost` over both.
 */
export async function startFixtureHost(packDirs: string[], addToSite?: (siteDir: string) => Promise<void>): Promise<FixtureHost> {
  const data = await fixtureDataDir(...packDirs);
  let site: TempDir | undefined;
  try {
    site = await staticBuild();
    if (addToSite) await addToSite(site.path);
    const { services, host } = await startAppHost(data.path, site.path);
    const built = site;
    return {
      data,
      site,
      services,
      host,
      close: async () => {
        await host.close();
        await services.dispose();
        await data.remove();
        await built.remove();
      },
    };
  } catch (error) {
    await data.remove();
    await site?.remove();
    throw error;
  }
}

/** A minimal renderer build: index.html plus one asset, the shape Vite emits. */
export async function staticBuild(): Promise<TempDir> {
  const dir = await tempDir('static');
  await mkdir(path.join(dir.path, 'assets'));
  await writeFile(path.join(dir.path, 'index.html'), '<!doctype html><title>t</title><script type="module" src="./assets/app.js"></script>');
  await writeFile(path.join(dir.path, 'assets', 'app.js'), 'console.log("app");\n');
  await writeFile(path.join(dir.path, '.secret'), 'hidden');
  return dir;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json(): unknown;
}

export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Stream the body in chunks without a Content-Length. */
  readonly chunked?: boolean;
}

export function raw(port: number, options: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { Host: `127.0.0.1:${port}`, ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as unknown });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      const body = Buffer.from(options.body);
      const step = 64 * 1024;
      for (let i = 0; i < body.length; i += step) req.write(body.subarray(i, i + step));
      req.end();
    } else {
      req.end(options.body);
    }
  });
}
