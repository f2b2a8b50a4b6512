// The web host through its real transport: a real server on a random port, over a data dir copied
// from the discovery fixtures, called with real HTTP. Covers the guards (token, Host, Origin,
// content type, body size), the contract's parsing, the catalog/settings methods, static files
// and the module delivery route against the catalog's own digests.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../services/app-services.ts';
import { startWebHost, type WebHost } from './web-host.ts';
import { CONTENT_SECURITY_POLICY } from './static-files.ts';
import { fixtureDataDir, raw, REPO_ROOT, startFixtureHost, type FixtureHost } from '../testing/test-support.ts';

const GOOD = path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo');
const PRIVATE = path.join(REPO_ROOT, 'fixtures/discovery/rules/node_modules/private-pack');

let app: FixtureHost;
let services: AppServices;
let host: WebHost;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await startFixtureHost([GOOD, PRIVATE]);
  ({ services, host } = app);
  auth = { Authorization: `Bearer ${host.token}` };
});

afterAll(async () => {
  await app?.close();
});

const rpc = (method: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(host.port, {
    method: 'POST',
    path: `/api/rpc/${method}`,
    headers: { ...auth, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('listening', () => {
  it('binds 127.0.0.1 only and prints a URL carrying the token in the fragment', () => {
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/#token=${host.token}`);
    expect(host.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('token', () => {
  it('refuses a request without the token with 401 unauthorized', async () => {
    const res = await raw(host.port, { method: 'POST', path: '/api/rpc/settings.get', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toEqual({ ok: false, code: 'unauthorized', message: 'This request needs the access token from the URL the app printed at start.' });
  });

  it('refuses a wrong token, a token of another shape, and the token in the query string', async () => {
    expect((await rpc('settings.get', {}, { Authorization: `Bearer ${host.token.slice(0, -1)}${host.token.endsWith('A') ? 'B' : 'A'}` })).status).toBe(401);
    expect((await rpc('settings.get', {}, { Authorization: `Basic ${host.token}` })).status).toBe(401);
    // Shorter and longer: the token's first characters, and the token with one more.
    expect((await rpc('settings.get', {}, { Authorization: `Bearer ${host.token.slice(0, -1)}` })).status).toBe(401);
    expect((await rpc('settings.get', {}, { Authorization: `Bearer ${host.token}A` })).status).toBe(401);
    const query = await raw(host.port, { path: `/api/events?token=${host.token}` });
    expect(query.status).toBe(401);
  });

  it('guards every API route, not only rpc', async () => {
    for (const route of ['/api/events', '/api/sandbox-modules/m_0', '/api/nothing', '/api']) {
      expect((await raw(host.port, { path: route })).status, route).toBe(401);
    }
  });
});

describe('Host and Origin', () => {
  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    const res = await rpc('settings.get', {}, { Host: `attacker.example:${host.port}` });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({
      ok: false,
      code: 'forbidden',
      message: `This server answers only requests addressed to 127.0.0.1:${host.port} or localhost:${host.port}.`,
    });
    expect((await rpc('settings.get', {}, { Host: '127.0.0.1:1' })).status).toBe(403);
    expect((await raw(host.port, { path: '/', headers: { Host: 'attacker.example' } })).status).toBe(403);
  });

  it('accepts localhost:PORT as the host', async () => {
    expect((await rpc('settings.get', {}, { Host: `localhost:${host.port}` })).status).toBe(200);
  });

  it('refuses a cross-site Origin and Sec-Fetch-Site: cross-site with 403', async () => {
    const res = await rpc('settings.get', {}, { Origin: 'https://attacker.example' });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ ok: false, code: 'forbidden', message: 'Requests from other web sites are not allowed.' });
    expect((await rpc('settings.get', {}, { Origin: 'null' })).status).toBe(403);
    expect((await rpc('settings.get', {}, { Origin: `http://127.0.0.1:${host.port + 1}` })).status).toBe(403);
    expect((await rpc('settings.get', {}, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
  });

  it('accepts its own origin and no CORS header is ever sent', async () => {
    const res = await rpc('settings.get', {}, { Origin: host.origin, 'Sec-Fetch-Site': 'same-origin' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await raw(host.port, { method: 'OPTIONS', path: '/api/rpc/settings.get', headers: { Origin: 'https://attacker.example' } });
    expect(preflight.status).toBe(403);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('request bodies', () => {
  it('requires a JSON content type (415)', async () => {
    const res = await rpc('settings.get', {}, { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.json()).toEqual({ ok: false, code: 'invalid-request', message: 'The request body must be JSON (Content-Type: application/json).' });
    const none = await raw(host.port, { method: 'POST', path: '/api/rpc/settings.get', headers: auth, body: '{}' });
    expect(none.status).toBe(415);
  });

  it('refuses a declared oversized body with 413 before reading it', async () => {
    const big = JSON.stringify({ term: 'x'.repeat(1024 * 1024) });
    const res = await rpc('packs.search', JSON.parse(big));
    expect(res.status).toBe(413);
    expect(res.json()).toEqual({ ok: false, code: 'request-too-large', message: 'The request body is larger than the 1 MB this server accepts.' });
  });

  it('cuts off a chunked body that grows past the limit (413)', async () => {
    const res = await raw(host.port, {
      method: 'POST',
      path: '/api/rpc/packs.search',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ term: 'y'.repeat(2 * 1024 * 1024) }),
      chunked: true,
    });
    expect(res.status).toBe(413);
  });

  it('answers malformed JSON with 400 invalid-request', async () => {
    const res = await raw(host.port, {
      method: 'POST',
      path: '/api/rpc/settings.get',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"a":',
    });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ ok: false, code: 'invalid-request', message: 'The request body is not valid JSON.' });
  });

  it('answers a payload that breaks the method schema with each issue as path: message', async () => {
    const res = await rpc('packs.search', { term: 5, extra: true });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'packs.search: term: Invalid input: expected string, received number; (root): Unrecognized key: "extra"',
    });
    const nested = await rpc('settings.setSessionAllowlist', { sessionAllowlist: ['ok', 7] });
    expect(nested.json()).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'settings.setSessionAllowlist: sessionAllowlist.1: Invalid input: expected string, received number',
    });
    expect((await rpc('settings.get', null)).json()).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'settings.get: (root): Invalid input: expected object, received null',
    });
  });

  it('answers an unknown method with 400 invalid-request and never reaches a handler', async () => {
    for (const name of ['packs.nope', 'constructor', '__proto__', 'toString']) {
      const res = await rpc(name, {});
      expect(res.status, name).toBe(400);
      expect(res.json()).toEqual({ ok: false, code: 'invalid-request', message: `method: there is no service method "${name}"` });
    }
  });

  it('refuses GET on rpc (405)', async () => {
    expect((await raw(host.port, { path: '/api/rpc/settings.get', headers: auth })).status).toBe(405);
  });
});

describe('catalog methods', () => {
  it('catalog.summaries lists the fixture modules without paths', async () => {
    const res = await rpc('catalog.summaries', {});
    expect(res.status).toBe(200);
    const body = res.json() as { ok: true; value: { modules: { specifier: string; status: string }[] } };
    expect(body.ok).toBe(true);
    expect(body.value.modules.map((m) => m.specifier).sort()).toEqual(['@acme/geo', '@acme/geo/extra', '@acme/geo/simplify-wasm', 'private-pack']);
    expect(res.text).not.toContain(app.data.path);
  });

  it('catalog.diagnostics has one row per pack, without paths, and the start-up reconcile report', async () => {
    const body = (await rpc('catalog.diagnostics', {})).json() as { ok: true; value: { packs: { name: string; status: string }[]; reconcile: unknown } };
    expect(body.value.reconcile).toEqual({ ok: true, fixed: [], missing: [] });
    // The npm the installer runs is the app's own (package.json pins it), on the runtime running the host.
    const pinned = (JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: { npm: string } }).dependencies.npm;
    expect((body.value as unknown as { runtime: unknown }).runtime).toEqual({ npm: pinned, node: process.versions.node, electron: null });
    expect(body.value.packs.map((p) => [p.name, p.status])).toEqual(
      expect.arrayContaining([
        ['@acme/geo', 'ok'],
        ['private-pack', 'ok'],
      ]),
    );
  });

  it('catalog.skillDoc returns the body marked untrusted for a pack nobody trusted', async () => {
    const body = (await rpc('catalog.skillDoc', { packName: '@acme/geo' })).json() as { ok: true; value: Record<string, unknown> };
    expect(body.ok).toBe(true);
    expect(body.value).toMatchObject({ packName: '@acme/geo', packVersion: '1.2.0', trusted: false, skillName: 'acme-geo' });
    expect(body.value.markdown).toContain('# @acme/geo');
  });

  it('catalog.skillDoc for an unknown pack is not-found, and a path-like name is refused by the schema', async () => {
    const missing = await rpc('catalog.skillDoc', { packName: 'nope' });
    expect(missing.status).toBe(200);
    expect(missing.json()).toEqual({ ok: false, code: 'not-found', message: 'No pack named "nope" is installed.' });
    const res = await rpc('catalog.skillDoc', { packName: '../../etc' });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ ok: false, code: 'invalid-request', message: 'catalog.skillDoc: packName: not a valid npm package name' });
  });
});

describe('settings methods', () => {
  it('reads defaults, then stores the registry and the session allowlist', async () => {
    expect((await rpc('settings.get', {})).json()).toEqual({ ok: true, value: { registry: 'https://registry.npmjs.org/', sessionAllowlist: [] } });
    expect((await rpc('settings.setRegistry', { registry: 'http://127.0.0.1:4873/' })).json()).toEqual({
      ok: true,
      value: { registry: 'http://127.0.0.1:4873/', sessionAllowlist: [] },
    });
    expect((await rpc('settings.setSessionAllowlist', { sessionAllowlist: ['@acme/geo', '@acme/geo'] })).json()).toEqual({
      ok: true,
      value: { registry: 'http://127.0.0.1:4873/', sessionAllowlist: ['@acme/geo'] },
    });
    expect((await rpc('settings.get', {})).json()).toEqual({ ok: true, value: { registry: 'http://127.0.0.1:4873/', sessionAllowlist: ['@acme/geo'] } });
  });

  it('refuses a registry that is not http(s) or carries credentials', async () => {
    for (const registry of ['file:///etc/passwd', 'https://user:pw@registry.example/', 'not a url']) {
      const res = await rpc('settings.setRegistry', { registry });
      expect(res.json(), registry).toEqual({
        ok: false,
        code: 'invalid-request',
        message: 'settings.setRegistry: registry: a registry is an http(s) URL without credentials',
      });
    }
  });
});

describe('packs methods without a registry', () => {
  it('packs.list of a plain tree is empty; packs.search reads the bundled index', async () => {
    expect((await rpc('packs.list', {})).json()).toEqual({ ok: true, value: { packs: [] } });
    const search = (await rpc('packs.search', { term: 'csv' })).json() as { ok: true; value: { hits: { name: string; recommended: boolean }[] } };
    expect(search.value.hits.map((h) => h.name)).toContain('@nodetool-ai/sandbox-csv');
  });

  it('packs.trustDryRun, packs.uninstall, packs.trust, packs.rebuild and packs.update of an unknown pack answer not-installed', async () => {
    for (const method of ['packs.trustDryRun', 'packs.uninstall', 'packs.trust', 'packs.rebuild', 'packs.update']) {
      const res = await rpc(method, { name: 'not-here' });
      expect(res.status, method).toBe(200);
      expect(res.json()).toEqual({ ok: false, code: 'not-installed', message: 'No pack named not-here is installed.' });
    }
  });
});

describe('code methods', () => {
  it('code.run runs a node with a declared pack (JS entry and its WASM sibling) and reports what it resolved', async () => {
    const res = await rpc('code.run', {
      code: 'import { add } from "@acme/geo/simplify-wasm";\nconsole.log("hi");\nreturn { sum: await add(x, 2) };',
      packages: [{ specifier: '@acme/geo/simplify-wasm' }],
      inputs: { x: 40 },
    });
    expect(res.status).toBe(200);
    const body = res.json() as { ok: true; value: { result: { ok: boolean; value: unknown; logs: unknown[] }; resolved: unknown[] } };
    expect(body.ok).toBe(true);
    expect(body.value.result).toMatchObject({ ok: true, value: { sum: 42 }, logs: [{ level: 'log', text: 'hi' }] });
    expect(body.value.resolved).toEqual([
      {
        specifier: '@acme/geo/simplify-wasm',
        packName: '@acme/geo',
        packVersion: '1.2.0',
        digest: services.catalog.summaries().find((m) => m.specifier === '@acme/geo/simplify-wasm')!.digest,
      },
    ]);
  }, 60_000);

  it('code.run: an undeclared import is denied inside the run; an unknown declaration fails the call', async () => {
    const denied = (await rpc('code.run', { code: 'import { add } from "@acme/geo/simplify-wasm";\nreturn 1;', packages: [] })).json() as {
      ok: true;
      value: { result: { ok: boolean; code: string } };
    };
    expect(denied.ok).toBe(true);
    expect(denied.value.result).toMatchObject({ ok: false, code: 'import-denied' });
    const unknown = (await rpc('code.run', { code: 'return 1;', packages: [{ specifier: '@nobody/nothing' }] })).json() as { ok: false; code: string };
    expect(unknown).toMatchObject({ ok: false, code: 'unknown-specifier' });
  }, 60_000);

  it('code.validate reports errors and warnings per node against the installed packs', async () => {
    const workflow = {
      nodes: [
        { id: 'ok', type: 'code', code: 'import { haversine } from "@acme/geo";\nreturn 1;', packages: [{ specifier: '@acme/geo' }] },
        {
          id: 'bad',
          type: 'code',
          code: 'import { x } from "@nobody/pack";\nreturn x;',
          packages: [{ specifier: '@nobody/pack' }, { specifier: '@acme/geo/extra' }],
        },
      ],
    };
    const res = (await rpc('code.validate', { workflow })).json() as {
      ok: true;
      value: { valid: boolean; issues: { nodeId: string; severity: string; code: string }[] };
    };
    expect(res.ok).toBe(true);
    expect(res.value.valid).toBe(false);
    expect(res.value.issues.map((i) => [i.nodeId, i.severity, i.code])).toEqual([
      ['bad', 'error', 'unknown-specifier'],
      ['bad', 'warning', 'declared-unused'],
    ]);
    const clean = (await rpc('code.validate', { workflow: { nodes: [workflow.nodes[0]] } })).json();
    expect(clean).toEqual({ ok: true, value: { valid: true, issues: [] } });
  });

  it('code.run refuses inputs that are not identifiers and hosts that are not DNS names', async () => {
    const res = await rpc('code.run', { code: 'return 1;', packages: [], inputs: { 'a-b': 1 }, fetchHosts: ['http://x'] });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'code.run: inputs.a-b: Invalid key in record; fetchHosts.0: a host is a lower-case DNS name, optionally starting with "*."',
    });
  });
});

describe('workflow methods', () => {
  const workflow = { nodes: [{ id: 'n1', type: 'code', code: 'return 1;', packages: [{ specifier: '@acme/geo' }] }] };

  it('saves, lists and loads a workflow by name', async () => {
    expect((await rpc('workflows.list', {})).json()).toEqual({ ok: true, value: { names: [] } });
    expect((await rpc('workflows.save', { name: 'My flow', workflow })).json()).toEqual({ ok: true, value: { name: 'My flow' } });
    expect((await rpc('workflows.save', { name: 'another', workflow: { nodes: [] } })).json()).toEqual({ ok: true, value: { name: 'another' } });
    expect((await rpc('workflows.list', {})).json()).toEqual({ ok: true, value: { names: ['another', 'My flow'] } });
    expect((await rpc('workflows.load', { name: 'My flow' })).json()).toEqual({ ok: true, value: { name: 'My flow', workflow } });
    expect(await readFile(path.join(app.data.path, 'workflows', 'My flow.json'), 'utf8')).toBe(`${JSON.stringify(workflow, null, 2)}\n`);
  });

  it('refuses names that could be paths and workflows that break the format', async () => {
    for (const name of ['../x', 'a/b', '.hidden', 'x'.repeat(65), '']) {
      const res = await rpc('workflows.save', { name, workflow });
      expect(res.status, name).toBe(400);
      expect((res.json() as { code: string }).code).toBe('invalid-request');
    }
    const dup = await rpc('workflows.save', { name: 'dup', workflow: { nodes: [workflow.nodes[0], workflow.nodes[0]] } });
    expect(dup.json()).toEqual({ ok: false, code: 'invalid-request', message: 'workflows.save: workflow.nodes: node ids must be unique' });
    expect((await rpc('workflows.load', { name: 'missing' })).json()).toEqual({
      ok: false,
      code: 'not-found',
      message: 'There is no saved workflow named "missing".',
    });
  });

  it('a hand-edited file that breaks the format is reported, not returned', async () => {
    await writeFile(path.join(app.data.path, 'workflows', 'broken.json'), JSON.stringify({ nodes: [{ id: 'x', type: 'shell', code: 'rm -rf /' }] }));
    const res = (await rpc('workflows.load', { name: 'broken' })).json() as { ok: false; code: string; message: string };
    expect(res.ok).toBe(false);
    expect(res.code).toBe('invalid-data');
    expect(res.message.startsWith('broken.json: nodes.0.type: ')).toBe(true);
  });
});

describe('module delivery', () => {
  const summaryOf = (specifier: string) => services.catalog.summaries().find((m) => m.specifier === specifier)!;

  it('delivers a module by opaque id with the catalog digest and dependencies', async () => {
    const summary = summaryOf('@acme/geo');
    const expected = await services.catalog.authorizeDelivery(summary.moduleId!, { kind: 'main' });
    if (!expected.ok) throw new Error(expected.message);
    const res = await raw(host.port, { path: `/api/sandbox-modules/${summary.moduleId}`, headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['x-sandbox-module-digest']).toBe(summary.digest);
    expect(res.headers.etag).toBe(`"${summary.digest}"`);
    expect(res.headers['x-sandbox-module-dependencies']).toBe(expected.dependencies.join(','));
    expect(expected.dependencies.length).toBeGreaterThan(0);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.text).toBe(expected.body);
  });

  it('serves a WASM facade as JavaScript with its own digest', async () => {
    const summary = summaryOf('@acme/geo/simplify-wasm');
    const res = await raw(host.port, { path: `/api/sandbox-modules/${summary.moduleId}`, headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-module-digest']).toBe(summary.digest);
  });

  it('is immutable when addressed by the current digest, 409 stale-digest for another, 304 on a matching ETag', async () => {
    const summary = summaryOf('@acme/geo');
    const pinned = await raw(host.port, { path: `/api/sandbox-modules/${summary.moduleId}?digest=${summary.digest}`, headers: auth });
    expect(pinned.status).toBe(200);
    expect(pinned.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    const stale = await raw(host.port, { path: `/api/sandbox-modules/${summary.moduleId}?digest=${'0'.repeat(64)}`, headers: auth });
    expect(stale.status).toBe(409);
    expect(stale.json()).toEqual({
      ok: false,
      code: 'stale-digest',
      message: `Module ${summary.moduleId} is now at digest ${summary.digest}; the requested digest is no longer served.`,
    });
    const revalidated = await raw(host.port, {
      path: `/api/sandbox-modules/${summary.moduleId}`,
      headers: { ...auth, 'If-None-Match': `"${summary.digest}"` },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
  });

  it('answers 404 for an unknown id and 400 for an id that is not an opaque id', async () => {
    const unknown = await raw(host.port, { path: '/api/sandbox-modules/m_000000000000000000000000', headers: auth });
    expect(unknown.status).toBe(404);
    expect((unknown.json() as { code: string }).code).toBe('not-found');
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%40acme%2Fgeo', 'a.b', 'x'.repeat(129), '']) {
      const res = await raw(host.port, { path: `/api/sandbox-modules/${id}`, headers: auth });
      expect(res.status, id).toBe(400);
      expect(res.json()).toEqual({ ok: false, code: 'invalid-request', message: 'moduleId: a module id is 1–128 letters, digits, "-" or "_"' });
    }
    const badDigest = await raw(host.port, { path: `/api/sandbox-modules/m_0?digest=ABC`, headers: auth });
    expect(badDigest.status).toBe(400);
  });

  it("answers 403 for a private pack's module (the catalog's entitlement rule for browser principals)", async () => {
    const summary = summaryOf('private-pack');
    expect(summary.status).toBe('ready');
    const res = await raw(host.port, { path: `/api/sandbox-modules/${summary.moduleId}`, headers: auth });
    expect(res.status).toBe(403);
    expect((res.json() as { code: string }).code).toBe('forbidden');
    const forMain = await services.catalog.authorizeDelivery(summary.moduleId!, { kind: 'main' });
    expect(forMain.ok).toBe(true);
  });
});

describe('static files', () => {
  it('serves the page with a strict CSP and no token needed', async () => {
    const res = await raw(host.port, { path: '/' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const asset = await raw(host.port, { path: '/assets/app.js' });
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('never leaves the build directory or shows hidden files', async () => {
    for (const p of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/.secret',
      '/assets/..%5c..%5cpackage.json',
      '/%00',
      '/nope.js',
    ]) {
      const res = await raw(host.port, { path: p });
      expect(res.status, p).toBe(404);
    }
  });
});

describe('no absolute paths cross', () => {
  it('a damaged ledger is repaired at start and reported in Diagnostics without the data dir, and the app keeps serving', async () => {
    const dir = await fixtureDataDir();
    try {
      await writeFile(path.join(dir.path, 'sandbox-packs-ledger.json'), '{ not json');
      const failures: string[] = [];
      const created = await createAppServices({ dataDir: dir.path, onReconcileFailure: (f) => failures.push(f.code) });
      if (!created.ok) throw new Error(created.message);
      const own = await startWebHost({ dispatcher: created.value.dispatcher, events: created.value.events, catalog: created.value.catalog, port: 0 });
      try {
        const res = await raw(own.port, {
          method: 'POST',
          path: '/api/rpc/packs.list',
          headers: { Authorization: `Bearer ${own.token}`, 'Content-Type': 'application/json' },
          body: '{}',
        });
        expect(res.json()).toEqual({ ok: true, value: { registry: 'https://registry.npmjs.org/', packs: [] } });
        expect(res.text).not.toContain(dir.path);
        expect(failures).toEqual([]);
        // Diagnostics carry what start-up reconcile repaired, in sentences that name no path.
        const diag = await raw(own.port, {
          method: 'POST',
          path: '/api/rpc/catalog.diagnostics',
          headers: { Authorization: `Bearer ${own.token}`, 'Content-Type': 'application/json' },
          body: '{}',
        });
        const reconcile = (diag.json() as { value: { reconcile: { ok: boolean; fixed: string[] } } }).value.reconcile;
        expect(reconcile.ok).toBe(true);
        expect(reconcile.fixed[0]).toMatch(
          /^The install ledger sandbox-packs-ledger\.json was damaged \(not valid JSON \(cut short or overwritten\)\) and had no usable backup; the damaged copy was kept as sandbox-packs-ledger\.json\.damaged-[0-9TZ-]+, and a new ledger was built from node_modules and the lockfile: no packs were installed\.$/,
        );
        expect(diag.text).not.toContain(dir.path);
      } finally {
        await own.close();
        await created.value.dispose();
      }
    } finally {
      await dir.remove();
    }
  });
});
