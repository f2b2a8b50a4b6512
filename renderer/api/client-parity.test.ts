// Components never see the transport: the same calls through the HTTP client (real web host) and
// through the preload client give identical answers and events. The preload side is driven the
// way electron/main/ipc.ts drives it — `invoke(method, payload)` into the same dispatcher,
// `onEvent` from the same hub — with structuredClone standing in for IPC serialization, since
// the Electron binary cannot run here.
/* eslint-disable no-restricted-imports -- test harness: starts the real services and web host */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../electron/services/app-services.ts';
import { startWebHost, type WebHost } from '../../electron/server/web-host.ts';
import { fixtureDataDir, REPO_ROOT, type TempDir } from '../../electron/testing/test-support.ts';
/* eslint-enable no-restricted-imports */
import type { ContractClient } from '../../shared/contract/client.ts';
import type { ContractEvent } from '../../shared/contract/events.ts';
import type { PreloadBridge } from '../../shared/contract/ipc-channels.ts';
import { createHttpClient } from './http-client.ts';
import { createPreloadClient } from './preload-client.ts';

let data: TempDir;
let services: AppServices;
let host: WebHost;
let clients: Record<'http' | 'preload', ContractClient>;

beforeAll(async () => {
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
  host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
  const bridge: PreloadBridge = {
    invoke: async (method, payload) => structuredClone(await services.dispatcher.handle(method, structuredClone(payload), { face: 'ipc' })),
    onEvent: (listener) => services.events.subscribe((event) => listener(structuredClone(event))),
  };
  clients = { http: createHttpClient(host.origin, host.token), preload: createPreloadClient(bridge) };
});

afterAll(async () => {
  await host?.close();
  await services?.dispose();
  await data?.remove();
});

describe('one interface, two transports', () => {
  it('answers every read method identically', async () => {
    const calls = [
      ['catalog.summaries', {}],
      ['catalog.diagnostics', {}],
      ['catalog.skillDoc', { packName: '@acme/geo' }],
      ['catalog.skillDoc', { packName: 'missing' }],
      ['packs.list', {}],
      ['packs.search', { term: 'yaml' }],
      ['settings.get', {}],
    ] as const;
    for (const [method, request] of calls) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- iterating over heterogeneous methods
      const viaHttp = await clients.http.call(method, request as any);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const viaPreload = await clients.preload.call(method, request as any);
      expect(viaPreload, method).toEqual(viaHttp);
    }
  });

  it('refuses a malformed request the same way', async () => {
    // @ts-expect-error -- a request the types forbid, as a compromised page could send it
    const bad = { term: ['x'] } as { term: string };
    const viaHttp = await clients.http.call('packs.search', bad);
    expect(viaHttp).toEqual({ ok: false, code: 'invalid-request', message: 'packs.search: term: Invalid input: expected string, received array' });
    expect(await clients.preload.call('packs.search', bad)).toEqual(viaHttp);
  });

  it('delivers the same parsed events and drops ones outside the contract', async () => {
    const got: Record<string, ContractEvent[]> = { http: [], preload: [] };
    const offs = [clients.http.onEvent((e) => got.http!.push(e)), clients.preload.onEvent((e) => got.preload!.push(e))];
    try {
      for (let i = 0; i < 200 && services.events.listenerCount < 2; i++) await new Promise((r) => setTimeout(r, 25));
      const report = await services.catalog.reload();
      if (!report.ok) throw new Error(report.message);
      // An event that breaks the contract (as a buggy emitter could send) reaches no listener.
      services.events.emit({ type: 'catalog-changed', reason: 'bogus', packCount: -1, moduleCount: 0 } as unknown as ContractEvent);
      services.events.emit({ type: 'catalog-changed', reason: 'reload', packCount: report.value.packs, moduleCount: report.value.readyModules });
      for (let i = 0; i < 200 && got.http!.length < 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(got.http).toEqual([{ type: 'catalog-changed', reason: 'reload', packCount: 1, moduleCount: 3 }]);
      expect(got.preload).toEqual(got.http);
    } finally {
      for (const off of offs) off();
    }
  });
});
