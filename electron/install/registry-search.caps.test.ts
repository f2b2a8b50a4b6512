// What a registry can make a search cost, against a real HTTP server on 127.0.0.1 playing a
// hostile registry: a 120 MB search answer (the number), with or without a
// Content-Length, is cut at the 5 MB cap and answered with a note; a search that trickles is cut
// at its deadline; one published manifest that is oversized or never ends costs only its own
// hit's module summaries, with the reason in the note, and the other hits keep theirs. A remote
// registry index is read under the same kind of cap. That the reads stopped early is proven from
// the server's side (the socket closed before the answer finished); no times are asserted.

import { afterEach, describe, expect, it } from 'vitest';
import { startHostileServer, type Answer, type HostileServer } from '../testing/hostile-http.ts';
import { DEFAULT_SEARCH_LIMITS, loadRegistryIndex, searchPacks, searchRegistry, type RegistrySearchLimits } from './registry-search.ts';

const MB = 1024 * 1024;
/** What loopback socket buffers may hold beyond what the client read. */
const BUFFER_SLACK = 48 * MB;
const SEARCH_PATH = '/-/v1/search?text=keywords%3Asandbox-pack&size=250';

const servers: HostileServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function registry(answers: Record<string, Answer>): Promise<HostileServer> {
  const server = await startHostileServer(answers);
  servers.push(server);
  return server;
}

/** Asserts the client closed the socket of the one request for `path` before the answer finished. */
async function cutShort(server: HostileServer, path: string, atMost: number): Promise<void> {
  const served = server.servedAt(path);
  expect(served).toHaveLength(1);
  await served[0]!.closed;
  expect(served[0]!.finished).toBe(false);
  expect(served[0]!.sent).toBeLessThan(atMost);
}

const searchObject = (name: string) => ({ package: { name, version: '1.0.0', description: `The ${name} pack`, keywords: ['sandbox-pack'] } });
const manifestPath = (name: string) => `/${name.replace('/', '%2f')}/1.0.0`;
const manifest = (name: string) => ({
  name,
  version: '1.0.0',
  nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'index.js', description: 'Does good things' }] },
});

const shortLimits: RegistrySearchLimits = { ...DEFAULT_SEARCH_LIMITS, searchTimeoutMs: 500, manifestTimeoutMs: 500 };

describe('a search answer over the cap', () => {
  for (const declareLength of [false, true]) {
    it(`120 MB ${declareLength ? 'with' : 'without'} a Content-Length: read no further than the 5 MB cap, the bundled index with a note`, async () => {
      const server = await registry({ [SEARCH_PATH]: { kind: 'flood', totalBytes: 120 * MB, declareLength } });
      const result = await searchPacks({ term: 'yaml', registry: server.url });
      expect(result).toEqual({
        ok: true,
        value: {
          hits: [expect.objectContaining({ name: '@nodetool-ai/sandbox-yaml', sources: ['index'] }) as unknown],
          registry: server.url,
          note: `The registry ${server.url} answered the search badly (the answer is larger than the 5 MB allowed); showing the bundled index only.`,
        },
      });
      await cutShort(server, SEARCH_PATH, DEFAULT_SEARCH_LIMITS.searchMaxBytes + BUFFER_SLACK);
    });
  }

  it('a search answer that trickles is cut at its deadline, with a note', async () => {
    const server = await registry({ [SEARCH_PATH]: { kind: 'trickle', everyMs: 20 } });
    const result = await searchPacks({ term: 'yaml', registry: server.url }, (url) => searchRegistry(url, shortLimits));
    expect(result.ok && result.value.note).toBe(
      `The registry ${server.url} could not be searched (no complete answer within 0.5 s); showing the bundled index only.`,
    );
    await cutShort(server, SEARCH_PATH, Number.POSITIVE_INFINITY);
  });
});

describe('the follow-up manifest fetches', () => {
  it('an oversized manifest and one that never ends cost only their own summaries, each with its reason; the others keep theirs', async () => {
    const names = ['@sp-fixture/good', '@sp-fixture/huge', '@sp-fixture/slow'];
    const server = await registry({
      [SEARCH_PATH]: { kind: 'json', body: { objects: names.map(searchObject) } },
      [manifestPath('@sp-fixture/good')]: { kind: 'json', body: manifest('@sp-fixture/good') },
      [manifestPath('@sp-fixture/huge')]: { kind: 'flood', totalBytes: 120 * MB, declareLength: false },
      [manifestPath('@sp-fixture/slow')]: { kind: 'trickle', everyMs: 20 },
    });
    const result = await searchPacks({ term: 'sp-fixture', registry: server.url }, (url) => searchRegistry(url, shortLimits));
    if (!result.ok) throw new Error(result.message);
    expect(result.value.hits.map((h) => [h.name, h.sources, h.modules])).toEqual([
      ['@sp-fixture/good', ['registry'], ['@sp-fixture/good (js): Does good things']],
      ['@sp-fixture/huge', ['registry'], undefined],
      ['@sp-fixture/slow', ['registry'], undefined],
    ]);
    expect(result.value.note).toBe(
      "The registry's module summaries are not shown for " +
        '@sp-fixture/huge@1.0.0 (its published manifest could not be read: the answer is larger than the 1 MB allowed); ' +
        '@sp-fixture/slow@1.0.0 (its published manifest could not be read: no complete answer within 0.5 s). ' +
        'The packs can still be installed; the installer reads the modules from what it installs.',
    );
    await cutShort(server, manifestPath('@sp-fixture/huge'), DEFAULT_SEARCH_LIMITS.manifestMaxBytes + BUFFER_SLACK);
    await cutShort(server, manifestPath('@sp-fixture/slow'), Number.POSITIVE_INFINITY);

    // A term that leaves those hits out leaves their reasons out too.
    const good = await searchPacks({ term: 'good', registry: server.url }, (url) => searchRegistry(url, shortLimits));
    expect(good.ok && [good.value.hits.map((h) => h.name), good.value.note]).toEqual([['@sp-fixture/good'], undefined]);
  });

  it('past two, the note counts the rest', async () => {
    const names = ['@sp-fixture/a', '@sp-fixture/b', '@sp-fixture/c', '@sp-fixture/d'];
    const server = await registry({ [SEARCH_PATH]: { kind: 'json', body: { objects: names.map(searchObject) } } });
    const result = await searchPacks({ term: 'sp-fixture', registry: server.url });
    expect(result.ok && result.value.note).toBe(
      "The registry's module summaries are not shown for " +
        '@sp-fixture/a@1.0.0 (its published manifest could not be read: HTTP 404); @sp-fixture/b@1.0.0 (its published manifest could not be read: HTTP 404); and 2 more. ' +
        'The packs can still be installed; the installer reads the modules from what it installs.',
    );
  });
});

describe('a remote registry index', () => {
  it('an index over the cap is refused with a sentence, its body read no further than the cap', async () => {
    const server = await registry({ '/index.json': { kind: 'flood', totalBytes: 120 * MB, declareLength: false } });
    const source = `${server.url}index.json`;
    expect(await loadRegistryIndex(source)).toEqual({
      ok: false,
      code: 'invalid-data',
      message: `The registry index ${source} is larger than the 5 MB an index may be; check the URL, or use the bundled index.`,
    });
    await cutShort(server, '/index.json', 5 * MB + BUFFER_SLACK);
  });
});
