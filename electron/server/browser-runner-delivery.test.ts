// What the web host adds for the browser runner: the graph header and the WASM part on the
// delivery route, and the WASM-only policy on worker scripts (the page's policy is unchanged).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveredModuleInfoSchema } from '../../shared/protocol/delivery.ts';
import type { AppServices } from '../services/app-services.ts';
import { CONTENT_SECURITY_POLICY, WORKER_CONTENT_SECURITY_POLICY } from './static-files.ts';
import { raw, REPO_ROOT, startFixtureHost, type FixtureHost } from '../testing/test-support.ts';
import type { WebHost } from './web-host.ts';

const GEO = path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo');

let app: FixtureHost;
let services: AppServices;
let host: WebHost;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await startFixtureHost([GEO], async (site) => {
    await writeFile(path.join(site, 'assets', 'kernel-worker-Ab_1.js'), 'self.postMessage(1);\n');
    await mkdir(path.join(site, 'assets', 'nested'));
    await writeFile(path.join(site, 'assets', 'nested', 'kernel-worker-Ab_1.js'), '1;\n');
  });
  ({ services, host } = app);
  auth = { Authorization: `Bearer ${host.token}` };
});

afterAll(async () => {
  await app?.close();
});

const moduleIdOf = (specifier: string) => services.catalog.summaries().find((m) => m.specifier === specifier)?.moduleId as string;

describe('delivery for the browser runner', () => {
  it('sends the graph information a browser needs, parseable with the shared schema', async () => {
    const id = moduleIdOf('@acme/geo');
    const res = await raw(host.port, { path: `/api/sandbox-modules/${id}`, headers: auth });
    expect(res.status).toBe(200);
    const info = DeliveredModuleInfoSchema.parse(JSON.parse(decodeURIComponent(String(res.headers['x-sandbox-module-graph']))));
    expect(info).toMatchObject({ moduleId: id, kind: 'js', packName: '@acme/geo', packVersion: '1.2.0', displayName: '@acme/geo' });
    expect(info.sources).toEqual([{ id: '@acme/geo@1.2.0/entry:@acme/geo', kind: 'js', content: 'source' }]);
    expect(Object.values(info.imports).sort()).toEqual(String(res.headers['x-sandbox-module-dependencies']).split(',').sort());
  });

  it("answers a WASM entry's binary with ?part=wasm under the same digest, and its exports in the graph header", async () => {
    const id = moduleIdOf('@acme/geo/simplify-wasm');
    const facade = await raw(host.port, { path: `/api/sandbox-modules/${id}`, headers: auth });
    const info = DeliveredModuleInfoSchema.parse(JSON.parse(decodeURIComponent(String(facade.headers['x-sandbox-module-graph']))));
    expect(info.wasm).toEqual({
      // With the types the binary was validated with (the page validates it against them again).
      exports: [
        { wasm: 'add', as: 'add', params: ['i32', 'i32'], result: 'i32' },
        { wasm: 'scale-f64', as: 'scale', params: ['f64', 'f64'], result: 'f64' },
      ],
      memoryPagesMax: 16,
      budgets: {},
    });
    expect(info.sources.map((s) => [s.kind, s.content])).toEqual([
      ['wasm-facade', 'source'],
      ['wasm-binary', 'wasm'],
      ['wasm-bridge', 'bridge'],
    ]);
    expect(facade.headers['x-sandbox-module-dependencies']).toBe('');
    const binary = await raw(host.port, { path: `/api/sandbox-modules/${id}?part=wasm`, headers: auth });
    expect(binary.status).toBe(200);
    expect(binary.headers['content-type']).toBe('application/wasm');
    expect(binary.headers['x-sandbox-module-digest']).toBe(facade.headers['x-sandbox-module-digest']);
  });

  it('refuses an unknown part and the WASM part of a JS module', async () => {
    const bad = await raw(host.port, { path: `/api/sandbox-modules/${moduleIdOf('@acme/geo')}?part=../x`, headers: auth });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ ok: false, code: 'invalid-request', message: 'part: a module part is one of source, wasm' });
    const js = await raw(host.port, { path: `/api/sandbox-modules/${moduleIdOf('@acme/geo')}?part=wasm`, headers: auth });
    expect(js.status).toBe(404);
    expect(js.json()).toEqual({ ok: false, code: 'not-found', message: '@acme/geo is not a WASM module; it has no binary to deliver.' });
  });
});

describe('worker script policy', () => {
  it('gives worker scripts, and only them, a policy that allows WebAssembly compilation', async () => {
    const worker = await raw(host.port, { path: '/assets/kernel-worker-Ab_1.js' });
    expect(worker.status).toBe(200);
    expect(worker.headers['content-security-policy']).toBe(WORKER_CONTENT_SECURITY_POLICY);
    expect(WORKER_CONTENT_SECURITY_POLICY).toBe("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'");
    for (const other of ['/', '/assets/app.js', '/assets/nested/kernel-worker-Ab_1.js']) {
      expect((await raw(host.port, { path: other })).headers['content-security-policy'], other).toBe(CONTENT_SECURITY_POLICY);
    }
  });
});
