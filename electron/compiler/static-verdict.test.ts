// Discovery with the real compiler: the static checks' verdict travels with the bundle (fresh or
// from the compile cache), so discovery does not parse the bundle a second time; a cache entry
// whose bundle was changed afterwards is parsed again and judged on its bytes. And a compile that
// misses the cache starts the probe worker before bundling.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JS_ANALYZER_ID } from '../../shared/packs/js-analysis.ts';
import { discover } from '../catalog/discover.ts';
import { CACHE_DIR } from './compile-cache.ts';
import { createFixtureRoot, type FixtureRoot } from '../testing/fixture-root.ts';
import { createNpmCompiler } from './npm-compiler.ts';
import { createProbe, type Probe, type ProbeFn } from './probe.ts';

let fx: FixtureRoot;
let probe: Probe;
beforeEach(async () => {
  fx = await createFixtureRoot();
  probe = createProbe();
  await fx.addPackage('node_modules/tiny-esm', {
    'package.json': { name: 'tiny-esm', version: '1.0.0', type: 'module', exports: './index.js' },
    'index.js': 'export function shout(s) { return String(s).toUpperCase() + "!"; }\n',
  });
  await fx.addPack('npm-pack', 'tiny-esm');
});
afterEach(async () => {
  await probe.close();
  await fx.dispose();
});

async function discoverPack(probeFn: ProbeFn = probe, onBundle?: () => void) {
  const port = {
    version: esbuild.version,
    build: (options: esbuild.BuildOptions & { write: false; metafile: true }) => (onBundle?.(), esbuild.build(options)),
  };
  const compiler = createNpmCompiler({ root: fx.root, probe: probeFn, esbuild: port });
  const found = await discover(fx.root, { compiler });
  if (!found.ok) throw new Error(found.message);
  const pack = found.value.packs.find((p) => p.name === 'npm-pack');
  if (!pack?.graph) throw new Error('npm-pack not loaded');
  return { pack, graph: pack.graph, stats: compiler.stats() };
}

async function cacheFile(): Promise<{
  file: string;
  entry: { outcome: { source: string; analysis?: { analyzer: string; sha256: string; exportNames: string[] } } };
}> {
  const dir = path.join(fx.root, CACHE_DIR);
  const [name] = (await fs.readdir(dir)).filter((f) => f.endsWith('.json'));
  if (!name) throw new Error('no cache entry');
  const file = path.join(dir, name);
  return { file, entry: JSON.parse(await fs.readFile(file, 'utf8')) };
}

describe('the static verdict of an npm bundle', () => {
  it('is recorded with the bundle and reused by a cold and a warm discovery, which parse nothing', async () => {
    const cold = await discoverPack();
    expect(cold.stats).toMatchObject({ bundles: 2, cacheHits: 0, probes: 1 });
    expect(cold.graph.analysis).toEqual({ parsed: 0, reused: 1 });
    expect(cold.pack.modules[0]).toMatchObject({ status: 'ready', exports: ['shout'] });

    const { entry } = await cacheFile();
    const bytes = new TextEncoder().encode(entry.outcome.source);
    expect(entry.outcome.analysis).toEqual({ analyzer: JS_ANALYZER_ID, sha256: createHash('sha256').update(bytes).digest('hex'), exportNames: ['shout'] });

    const warm = await discoverPack();
    expect(warm.stats).toEqual({ bundles: 0, cacheHits: 1, probes: 0 });
    expect(warm.graph.analysis).toEqual({ parsed: 0, reused: 1 });
    expect(warm.pack.modules).toEqual(cold.pack.modules);
  });

  it('a cache entry whose bundle was changed after it was judged is parsed again and skipped on what it now says', async () => {
    await discoverPack();
    const { file, entry } = await cacheFile();
    entry.outcome.source = 'function shout(){return import("node:fs")}export{shout};';
    await fs.writeFile(file, JSON.stringify(entry));
    const tampered = await discoverPack();
    expect(tampered.stats).toEqual({ bundles: 0, cacheHits: 1, probes: 0 });
    expect(tampered.graph.analysis).toEqual({ parsed: 1, reused: 0 });
    expect(tampered.pack.modules[0]).toMatchObject({
      status: 'skipped',
      code: 'js-dynamic-import',
      reason: 'npm-pack:1:25: import() is not allowed; use a static import of a file of this pack.',
    });
  });

  it("an entry without a verdict (or with another analyzer's) is parsed, and still ready", async () => {
    await discoverPack();
    const { file, entry } = await cacheFile();
    const verdict = entry.outcome.analysis;
    if (!verdict) throw new Error('no verdict');
    entry.outcome.analysis = { ...verdict, analyzer: 'js-analysis/0;acorn@0.0.0' };
    await fs.writeFile(file, JSON.stringify(entry));
    const other = await discoverPack();
    expect(other.graph.analysis).toEqual({ parsed: 1, reused: 0 });
    expect(other.pack.modules[0]).toMatchObject({ status: 'ready', exports: ['shout'] });
    delete entry.outcome.analysis;
    await fs.writeFile(file, JSON.stringify(entry));
    const none = await discoverPack();
    expect(none.stats).toEqual({ bundles: 0, cacheHits: 1, probes: 0 });
    expect(none.graph.analysis).toEqual({ parsed: 1, reused: 0 });
  });
});

describe('a verdict the cache could not read back', () => {
  it('is left out, so the entry is still a hit on the next start (an export name over 1000 characters)', async () => {
    const long = `x${'y'.repeat(1000)}`;
    await fx.addPackage('node_modules/long-name', {
      'package.json': { name: 'long-name', version: '1.0.0', type: 'module', exports: './index.js' },
      'index.js': `export const ${long} = 1;\n`,
    });
    const packDir = await fx.addPack('long-pack', 'long-name');
    const req = { packDir, packName: 'long-pack', packVersion: '1.0.0', npmName: 'long-name', specifier: 'long-pack' };
    const first = await createNpmCompiler({ root: fx.root, probe }).compile(req);
    expect(first.ok && first.value.analysis).toBe(undefined);
    const again = createNpmCompiler({ root: fx.root, probe });
    expect(await again.compile(req)).toEqual(first);
    expect(again.stats()).toEqual({ bundles: 0, cacheHits: 1, probes: 0 });
  });
});

describe('starting the probe worker early', () => {
  it('a compile that misses the cache warms the probe before bundling; a hit does not', async () => {
    const events: string[] = [];
    const counting: ProbeFn = Object.assign(
      (source: string, filename: string) => {
        events.push('probe');
        return probe(source, filename);
      },
      {
        warm: () => {
          events.push('warm');
          probe.warm();
        },
      },
    );
    const onBundle = () => events.push('bundle');
    await discoverPack(counting, onBundle);
    expect(events).toEqual(['warm', 'bundle', 'bundle', 'probe']);
    expect(probe.workersStarted).toBe(1);
    await discoverPack(counting, onBundle);
    expect(events).toEqual(['warm', 'bundle', 'bundle', 'probe']);
  });
});
