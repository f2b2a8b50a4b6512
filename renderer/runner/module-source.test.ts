// The browser runner's module source: digests recomputed over each module's closure, refusals
// with exact messages, and a cache that only ever holds verified modules. Delivery is fed from an
// in-memory route (the injected fetch power, as the real route would answer); hashing is the real
// crypto.subtle. The same code runs against the real web host in e2e/parity.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { canonicalGraphBytes, type GraphSource } from '../../shared/packs/digest.ts';
import {
  DELIVERY_DEPENDENCIES_HEADER,
  DELIVERY_DIGEST_HEADER,
  DELIVERY_GRAPH_HEADER,
  type DeliveredModuleInfo,
  type DeliveryPart,
} from '../../shared/protocol/delivery.ts';
import { DigestCache, loadModules, type FetchedPart, type ModuleSourcePowers } from './module-source.ts';

async function sha256(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes.slice()))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

interface Served {
  info: DeliveredModuleInfo;
  body: string;
  deps: string[];
  digest: string;
}

/** Two modules of one pack: the entry imports its internal helper. */
async function pack(): Promise<Map<string, Served>> {
  const helper: DeliveredModuleInfo = {
    moduleId: 'm_helper',
    kind: 'js',
    packName: '@acme/p',
    packVersion: '1.0.0',
    displayName: '@acme/p internal lib/b.js',
    imports: {},
    sources: [{ id: '@acme/p@1.0.0/file:lib/b.js', kind: 'internal', content: 'source' }],
  };
  const entry: DeliveredModuleInfo = {
    moduleId: 'm_entry',
    kind: 'js',
    packName: '@acme/p',
    packVersion: '1.0.0',
    displayName: '@acme/p',
    imports: { './lib/b.js': 'm_helper' },
    sources: [{ id: '@acme/p@1.0.0/entry:@acme/p', kind: 'js', content: 'source' }],
  };
  const bodies = { m_helper: 'export const b = 2;\n', m_entry: 'import { b } from "./lib/b.js";\nexport const a = b + 1;\n' };
  const source = (info: DeliveredModuleInfo, body: string): GraphSource => ({ id: info.sources[0]!.id, kind: info.sources[0]!.kind, content: body });
  return new Map<string, Served>([
    ['m_helper', { info: helper, body: bodies.m_helper, deps: [], digest: await sha256(canonicalGraphBytes([source(helper, bodies.m_helper)])) }],
    [
      'm_entry',
      {
        info: entry,
        body: bodies.m_entry,
        deps: ['m_helper'],
        digest: await sha256(canonicalGraphBytes([source(entry, bodies.m_entry), source(helper, bodies.m_helper)])),
      },
    ],
  ]);
}

/** An in-memory delivery route; `requests` records what was fetched. */
function route(served: Map<string, Served>, requests: string[] = []): ModuleSourcePowers {
  return {
    sha256,
    async fetchPart(id: string, part: DeliveryPart): Promise<FetchedPart> {
      requests.push(`${id}:${part}`);
      const module = served.get(id);
      const headers = new Map<string, string>();
      if (!module)
        return {
          status: 404,
          header: () => null,
          bytes: new TextEncoder().encode(JSON.stringify({ ok: false, code: 'not-found', message: `No module with id "${id}" is in the catalog.` })),
        };
      headers.set(DELIVERY_DIGEST_HEADER, module.digest);
      headers.set(DELIVERY_DEPENDENCIES_HEADER, module.deps.join(','));
      headers.set(DELIVERY_GRAPH_HEADER, encodeURIComponent(JSON.stringify(module.info)));
      return { status: 200, header: (name) => headers.get(name) ?? null, bytes: new TextEncoder().encode(module.body) };
    },
  };
}

describe('loadModules', () => {
  it('fetches the closure, verifies every digest, and gives the kernel its modules', async () => {
    const served = await pack();
    const loaded = await loadModules({ '@acme/p': { moduleId: 'm_entry', digest: served.get('m_entry')!.digest } }, route(served), new DigestCache());
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value.entries).toEqual({ '@acme/p': 'm_entry' });
    expect(Object.keys(loaded.value.modules).sort()).toEqual(['m_entry', 'm_helper']);
    expect(loaded.value.modules.m_entry).toMatchObject({
      imports: { './lib/b.js': 'm_helper' },
      digest: served.get('m_entry')!.digest,
      source: served.get('m_entry')!.body,
    });
    expect([loaded.value.fetched, loaded.value.cached]).toEqual([2, 0]);
  });

  it('serves a second load from the digest-keyed cache without fetching', async () => {
    const served = await pack();
    const cache = new DigestCache();
    const expected = { '@acme/p': { moduleId: 'm_entry', digest: served.get('m_entry')!.digest } };
    await loadModules(expected, route(served), cache);
    const requests: string[] = [];
    const again = await loadModules(expected, route(served, requests), cache);
    expect(again.ok && [again.value.fetched, again.value.cached]).toEqual([0, 2]);
    expect(requests).toEqual([]);
  });

  it('refuses a tampered helper body, names it, and caches nothing', async () => {
    const served = await pack();
    const honest = served.get('m_entry')!.digest;
    served.get('m_helper')!.body = 'export const b = 666;\n';
    const cache = new DigestCache();
    const loaded = await loadModules({ '@acme/p': { moduleId: 'm_entry', digest: honest } }, route(served), cache);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.code).toBe('digest-mismatch');
    expect(loaded.message).toMatch(
      /^Module @acme\/p internal lib\/b\.js \(m_helper\) was refused: what was delivered hashes to [0-9a-f]{12}…, not to its digest [0-9a-f]{12}…\. Nothing was run; reload the page or run in the main process\.$/,
    );
    expect(cache.size).toBe(0);
  });

  it('refuses a consistent but different graph when the node expects another digest (a poisoned route)', async () => {
    const served = await pack();
    const expected = served.get('m_entry')!.digest;
    // The attacker recomputes every digest so each header matches its own body.
    served.get('m_helper')!.body = 'export const b = 666;\n';
    const rehashed = await (async () => {
      const again = await pack();
      const h = again.get('m_helper')!;
      h.body = served.get('m_helper')!.body;
      h.digest = await sha256(canonicalGraphBytes([{ id: h.info.sources[0]!.id, kind: 'internal', content: h.body }]));
      const e = again.get('m_entry')!;
      e.digest = await sha256(
        canonicalGraphBytes([
          { id: e.info.sources[0]!.id, kind: 'js', content: e.body },
          { id: h.info.sources[0]!.id, kind: 'internal', content: h.body },
        ]),
      );
      return again;
    })();
    const cache = new DigestCache();
    const loaded = await loadModules({ '@acme/p': { moduleId: 'm_entry', digest: expected } }, route(rehashed), cache);
    expect(loaded).toMatchObject({ ok: false, code: 'digest-mismatch' });
    if (!loaded.ok) expect(loaded.message).toContain(`not to its digest ${expected.slice(0, 12)}…`);
    // Nothing of the poisoned graph may be served later under the expected digest.
    expect(cache.get(expected)).toBeUndefined();
  });

  it('refuses an import map that points outside what was delivered', async () => {
    const served = await pack();
    const entry = served.get('m_entry')!;
    entry.info = { ...entry.info, imports: { './lib/b.js': 'm_elsewhere' } };
    const loaded = await loadModules({ '@acme/p': { moduleId: 'm_entry', digest: entry.digest } }, route(served), new DigestCache());
    expect(loaded).toEqual({
      ok: false,
      code: 'invalid-data',
      message: 'Module @acme/p imports "./lib/b.js" as m_elsewhere, which was not delivered with it.',
    });
  });

  it("passes the host's tagged failure through, and refuses malformed graph information", async () => {
    const served = await pack();
    expect(await loadModules({ x: { moduleId: 'm_gone', digest: 'a'.repeat(64) } }, route(served), new DigestCache())).toEqual({
      ok: false,
      code: 'not-found',
      message: 'No module with id "m_gone" is in the catalog.',
    });
    const broken: ModuleSourcePowers = {
      sha256,
      fetchPart: async () => ({
        status: 200,
        header: (name) => (name === DELIVERY_DIGEST_HEADER ? 'b'.repeat(64) : name === DELIVERY_GRAPH_HEADER ? '%7B' : null),
        bytes: new Uint8Array(),
      }),
    };
    expect(await loadModules({ x: { moduleId: 'm_entry', digest: 'b'.repeat(64) } }, broken, new DigestCache())).toEqual({
      ok: false,
      code: 'invalid-data',
      message: 'Module m_entry was delivered without readable graph information (X-Sandbox-Module-Graph).',
    });
  });
});
