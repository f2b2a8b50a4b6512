// Finding packs on a registry: a real Verdaccio with packs published during the test, searched
// through the same function packs.search and `sandbox-packs search` use. Packs with the
// sandbox-pack keyword are found (with module summaries from their published manifest), merged
// with the bundled index and marked with their source; a package without the keyword is not; a
// registry that is down, or that has no search endpoint, leaves the bundled index with a note.

import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackSearchResultSchema } from '../../shared/contract/search-schemas.ts';
import { scaffoldPack } from '../authoring/scaffold.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createPackSearch, searchPacks } from './registry-search.ts';

let registry: TestRegistry;
let work: string;
const LONG_NAMED = '@sp-fixture/a-pack-whose-module-name-is-too-long';

async function publishPack(name: string, edit?: (pkg: Record<string, unknown>) => void): Promise<void> {
  const dir = path.join(work, name.replace(/[@/]/g, '_'));
  const made = await scaffoldPack({ dir, name });
  if (!made.ok) throw new Error(made.message);
  if (edit) {
    const file = path.join(dir, 'package.json');
    const pkg = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    edit(pkg);
    await writeFile(file, JSON.stringify(pkg, null, 2));
  }
  await registry.publish(dir);
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'sp-search-test-'));
  registry = await startRegistry({ uplink: false });
  await publishPack('@sp-fixture/found-me', (pkg) => {
    pkg.description = 'Finds things \u202Eexe.gnp';
  });
  // Not a pack: no sandbox-pack keyword.
  await publishPack('@sp-fixture/plain-lib', (pkg) => {
    pkg.keywords = ['util'];
  });
  // A second module whose name discovery would skip (256 characters): its specifier could not fit a hit.
  await publishPack(LONG_NAMED, (pkg) => {
    const nodetool = pkg.nodetool as { sandboxModules: { file?: string }[] };
    nodetool.sandboxModules.push({ name: 'n'.repeat(256), kind: 'js', file: nodetool.sandboxModules[0]?.file } as { file?: string });
  });
  // A newer version of a pack the bundled index lists.
  await publishPack('@nodetool-ai/sandbox-zip', (pkg) => {
    pkg.version = '1.2.0';
  });
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
});

const CLI = fileURLToPath(new URL('../../scripts/sandbox-packs.mjs', import.meta.url));

/** The CLI as the user runs it (a process: the installer's tests do not import the CLI face). */
async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const env = { ...process.env, SANDBOX_PACKS_ROOT: path.join(work, 'root') };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...argv], { cwd: work, env });
    return { code: 0, out: stdout.replace(/\n$/, '') };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, out: failed.stdout.replace(/\n$/, '') };
  }
}

describe('search against a real Verdaccio', () => {
  it('finds packs by keyword with manifest summaries, merges the bundled index, and marks every source', async () => {
    const result = await searchPacks({ term: '', registry: registry.url });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.note).toBeUndefined();
    const byName = new Map(result.value.hits.map((h) => [h.name, h]));
    expect(byName.get('@sp-fixture/found-me')).toEqual({
      name: '@sp-fixture/found-me',
      version: '0.1.0',
      description: 'Finds things \u202Eexe.gnp',
      sandboxModules: ['@sp-fixture/found-me'],
      recommended: false,
      sources: ['registry'],
      modules: ['@sp-fixture/found-me (js): Greetings and sums (replace with what your pack does)'],
    });
    expect(byName.has('@sp-fixture/plain-lib')).toBe(false);
    // In both: the registry's live version, the index's description and recommendation.
    expect(byName.get('@nodetool-ai/sandbox-zip')).toMatchObject({
      version: '1.2.0',
      recommended: true,
      sources: ['index', 'registry'],
      description: expect.stringMatching(/^Zip and unzip byte arrays/) as unknown,
    });
    expect(byName.get('@nodetool-ai/sandbox-yaml')).toMatchObject({ version: '1.0.0', sources: ['index'] });
  }, 30_000);

  it('offers only the modules an install could import: a module name discovery would skip is left out of the hit', async () => {
    const result = await searchPacks({ term: 'whose-module-name', registry: registry.url });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.hits.map((h) => [h.name, h.sandboxModules, h.modules])).toEqual([
      [LONG_NAMED, [LONG_NAMED], [`${LONG_NAMED} (js): Greetings and sums (replace with what your pack does)`]],
    ]);
    expect(PackSearchResultSchema.safeParse(result.value).success).toBe(true);
  }, 30_000);

  it('applies the term to registry hits like to the index', async () => {
    const result = await searchPacks({ term: 'finds', registry: registry.url });
    expect(result.ok && result.value.hits.map((h) => h.name)).toEqual(['@sp-fixture/found-me']);
  }, 30_000);

  it('sandbox-packs search --registry: text marks the source and escapes hidden characters; --json carries it', async () => {
    const text = await cli(['search', 'finds', '--registry', registry.url]);
    expect(text.code).toBe(0);
    expect(text.out).toBe(
      '  @sp-fixture/found-me@0.1.0  Finds things \\u202Eexe.gnp  [registry]\n    @sp-fixture/found-me (js): Greetings and sums (replace with what your pack does)',
    );
    const json = await cli(['search', 'zip', '--registry', registry.url, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({
      ok: true,
      registry: registry.url,
      results: [{ name: '@nodetool-ai/sandbox-zip', version: '1.2.0', sources: ['index', 'registry'] }],
    });
  }, 30_000);
});

describe("the app's search keeps the registry's answer briefly", () => {
  it('within the time to keep, a pack published since is not asked for again; past it, it is found', async () => {
    const kept = createPackSearch(60_000);
    const fresh = createPackSearch(0);
    const names = async (search: typeof kept): Promise<string[]> => {
      const r = await search({ term: 'arrival', registry: registry.url });
      return r.ok ? r.value.hits.map((h) => h.name) : [r.message];
    };
    expect(await names(kept)).toEqual([]);
    await publishPack('@sp-fixture/late-arrival');
    expect(await names(kept)).toEqual([]);
    expect(await names(fresh)).toEqual(['@sp-fixture/late-arrival']);
  }, 60_000);
});

describe('falling back to the bundled index', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  it('a registry without a search endpoint: the index alone, with the note', async () => {
    const result = await searchPacks({ term: 'yaml', registry: url });
    expect(result).toEqual({
      ok: true,
      value: {
        hits: [expect.objectContaining({ name: '@nodetool-ai/sandbox-yaml', sources: ['index'] }) as unknown],
        registry: url,
        note: `The registry ${url} has no search endpoint (HTTP 404); showing the bundled index only.`,
      },
    });
  });

  it('a registry that is down: the index alone, with the note naming the reason', async () => {
    const down = await startRegistry({ uplink: false });
    const downUrl = down.url;
    await down.stop();
    const result = await searchPacks({ term: 'yaml', registry: downUrl });
    expect(result.ok && result.value.hits.map((h) => [h.name, h.sources])).toEqual([['@nodetool-ai/sandbox-yaml', ['index']]]);
    expect(result.ok && result.value.note).toBe(`The registry ${downUrl} could not be searched (ECONNREFUSED); showing the bundled index only.`);
    const text = await cli(['search', 'yaml', '--registry', downUrl]);
    expect(text.out).toContain(`Note: The registry ${downUrl} could not be searched (ECONNREFUSED); showing the bundled index only.`);
  }, 60_000);
});
