// The renderer's HTTP client against the REAL web host (real server, real fetch, real SSE) and a
// real local registry: the whole package-manager flow a page drives — install with progress
// events, catalog refresh, trust dry run, trust, update, uninstall — plus how the client turns a
// bad token, a dead server and a contract-breaking answer into tagged failures.
//
// This file runs in Node to drive the real server, so it imports the Node side on purpose.
/* eslint-disable no-restricted-imports -- test harness: starts the real web host and registry */
import path from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../electron/services/app-services.ts';
import { startWebHost, type WebHost } from '../../electron/server/web-host.ts';
import { REPO_ROOT, tempDir, type TempDir } from '../../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../../electron/testing/verdaccio.ts';
/* eslint-enable no-restricted-imports */
import type { ContractEvent } from '../../shared/contract/events.ts';
import { createHttpClient, SERVER_STOPPED } from './http-client.ts';

const FIXTURES = path.join(REPO_ROOT, 'fixtures/registry-packs');

let registry: TestRegistry;
let data: TempDir;
let services: AppServices;
let host: WebHost;

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const pack of ['sandbox-marker-1.0.0', 'script-dep-1.0.0', 'register-pack-1.0.0', 'evolving-1.0.0', 'evolving-2.0.0']) {
    await registry.publish(path.join(FIXTURES, pack));
  }
  data = await tempDir('client');
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
  host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
});

afterAll(async () => {
  await host?.close();
  await services?.dispose();
  await data?.remove();
  await registry?.stop();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the package-manager flow over HTTP', () => {
  it('installs, reports progress and catalog changes, trusts, updates and uninstalls', async () => {
    const client = createHttpClient(host.origin, host.token);
    const events: ContractEvent[] = [];
    const unsubscribe = client.onEvent((event) => events.push(event));
    try {
      await until(() => services.events.listenerCount === 1, 'the SSE subscription');
      expect(await client.call('settings.setRegistry', { registry: registry.url })).toMatchObject({ ok: true });

      const installed = await client.call('packs.install', { spec: '@sp-fixture/sandbox-marker', operationId: 'op-1' });
      expect(installed).toMatchObject({
        ok: true,
        value: { name: '@sp-fixture/sandbox-marker', version: '1.0.0', installMode: 'sandbox-only', status: 'active', sourceLabel: 'registry', trusted: false },
      });
      if (!installed.ok) throw new Error(installed.message);
      expect(installed.value.scripts.map((s) => s.event).sort()).toEqual(['install', 'postinstall', 'preinstall']);

      await until(() => events.some((e) => e.type === 'catalog-changed'), 'catalog-changed');
      const progress = events
        .filter((e) => e.type === 'install-progress' && e.operationId === 'op-1')
        .map((e) => (e.type === 'install-progress' ? e.stage : ''));
      expect(progress[0]).toBe('resolving');
      expect(progress).toContain('fetching');
      expect(progress).toContain('classifying');
      expect(progress.at(-1)).toBe('done');
      expect(events.find((e) => e.type === 'catalog-changed')).toEqual({ type: 'catalog-changed', reason: 'install', packCount: 1, moduleCount: 1 });

      const summaries = await client.call('catalog.summaries', {});
      expect(summaries.ok && summaries.value.modules.map((m) => [m.specifier, m.status])).toEqual([['@sp-fixture/sandbox-marker', 'ready']]);
      expect((await client.call('packs.list', {})).ok && true).toBe(true);

      const register = await client.call('packs.install', { spec: '@sp-fixture/register-pack@1.0.0' });
      expect(register).toMatchObject({
        ok: true,
        value: { name: '@sp-fixture/register-pack', installMode: 'register', status: 'needs-trust', trusted: false },
      });

      const plan = await client.call('packs.trustDryRun', { name: '@sp-fixture/register-pack' });
      expect(plan.ok && plan.value.scripts.map((s) => [s.package, s.event, s.own])).toEqual([
        ['@sp-fixture/register-pack', 'postinstall', true],
        ['@sp-fixture/script-dep', 'postinstall', false],
      ]);

      const trusted = await client.call('packs.trust', { name: '@sp-fixture/register-pack' });
      expect(trusted).toMatchObject({ ok: true, value: { status: 'active', trusted: true } });
      const rebuilt = await client.call('packs.rebuild', { name: '@sp-fixture/register-pack' });
      expect(rebuilt).toMatchObject({ ok: true, value: { status: 'active', trusted: true } });

      expect(await client.call('packs.install', { spec: '@sp-fixture/evolving@1.0.0' })).toMatchObject({
        ok: true,
        value: { version: '1.0.0', status: 'active' },
      });
      // 2.0.0 became a register pack: an update loses active status until trusted.
      expect(await client.call('packs.update', { name: '@sp-fixture/evolving', to: '2.0.0' })).toMatchObject({
        ok: true,
        value: { version: '2.0.0', installMode: 'hybrid', status: 'needs-trust' },
      });

      expect(await client.call('packs.uninstall', { name: '@sp-fixture/sandbox-marker', operationId: 'op-9' })).toEqual({
        ok: true,
        value: { name: '@sp-fixture/sandbox-marker' },
      });
      const after = await client.call('catalog.summaries', {});
      expect(after.ok && after.value.modules.map((m) => m.specifier)).toEqual([]);
      await until(() => events.some((e) => e.type === 'catalog-changed' && e.reason === 'uninstall'), 'catalog-changed after uninstall');

      const list = await client.call('packs.list', {});
      expect(list.ok && list.value.packs.map((p) => [p.name, p.status])).toEqual([
        ['@sp-fixture/evolving', 'needs-trust'],
        ['@sp-fixture/register-pack', 'active'],
      ]);
      expect(JSON.stringify(list)).not.toContain(data.path);
    } finally {
      unsubscribe();
    }
    await until(() => services.events.listenerCount === 0, 'the SSE subscription to end');
  }, 180_000);

  it('reports a failed install as a tagged result and a failed progress event', async () => {
    const client = createHttpClient(host.origin, host.token);
    const events: ContractEvent[] = [];
    const unsubscribe = client.onEvent((event) => events.push(event));
    try {
      await until(() => services.events.listenerCount === 1, 'the SSE subscription');
      const result = await client.call('packs.install', { spec: 'git+ssh://git@example.com/x.git', operationId: 'bad-1' });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.code).toBe('spec-unsupported');
      await until(() => events.some((e) => e.type === 'install-progress' && e.stage === 'failed'), 'the failed event');
      expect(events.at(-1)).toMatchObject({ type: 'install-progress', operationId: 'bad-1', operation: 'install', stage: 'failed' });
    } finally {
      unsubscribe();
    }
  });
});

describe('client failures', () => {
  it('turns a wrong token into a tagged unauthorized failure', async () => {
    const client = createHttpClient(host.origin, 'wrong-token');
    expect(await client.call('settings.get', {})).toEqual({
      ok: false,
      code: 'unauthorized',
      message: 'This request needs the access token from the URL the app printed at start.',
    });
  });

  it('turns a server that does not answer into service-unreachable', async () => {
    const client = createHttpClient('http://127.0.0.1:1', host.token);
    const result = await client.call('settings.get', {});
    expect(result.ok).toBe(false);
    expect(!result.ok && result.code).toBe('service-unreachable');
  });

  it('says in a user sentence, without method names, that a server which stopped is gone', async () => {
    const stopping = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
    const client = createHttpClient(stopping.origin, stopping.token);
    expect((await client.call('settings.get', {})).ok).toBe(true);
    await stopping.close();
    const result = await client.call('packs.install', { spec: '@sp-fixture/sandbox-marker' });
    expect(result).toEqual({ ok: false, code: 'service-unreachable', message: SERVER_STOPPED });
    expect(SERVER_STOPPED).not.toMatch(/packs\.|service-unreachable|\bweb host\b/);
  });

  it('parses every answer: a server that breaks the contract yields invalid-data, never a bad shape', async () => {
    const liar = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ok: true, value: { registry: 'javascript:alert(1)', sessionAllowlist: 'all' } }));
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    try {
      const client = createHttpClient(`http://127.0.0.1:${(liar.address() as AddressInfo).port}`, 'x');
      expect(await client.call('settings.get', {})).toEqual({
        ok: false,
        code: 'invalid-data',
        message:
          'response of settings.get: value.registry: a registry is an http(s) URL without credentials; value.sessionAllowlist: Invalid input: expected array, received string',
      });
    } finally {
      await new Promise<void>((resolve) => liar.close(() => resolve()));
    }
  });
});
