// First run against the real installer (npm, scripts off) and the real shipped tarballs, with a
// registry nobody listens on, so any network use would fail the install. The seeded directory is
// then discovered with the real compiler and the example workflow validated and run in the real
// sandbox and WASM pools.

import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';
import { validateWorkflow } from '../../shared/workflow/validate-workflow.ts';
import { emptyLedger, readLedger, writeLedger } from '../install/ledger-store.ts';
import { SHIPPED_PACKS, type ShippedPack } from '../platform/assets.ts';
import { createCodeRunner } from '../services/code-runner.ts';
import { createWorkflowStore } from '../services/workflow-store.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';
import { openCatalog } from '../catalog/catalog.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { activePackNames } from '../install/active-packs.ts';
import { EXAMPLE_WORKFLOW, FIRST_RUN_FILE, runFirstRun } from './first-run.ts';
import { shippedPrecompiled, shippedTarball } from './shipped-tarballs.ts';
import type { PrecompiledSource } from './precompiled.ts';

const UNREACHABLE = 'http://127.0.0.1:9/';
const pack = (dir: string): ShippedPack => SHIPPED_PACKS.find((p) => p.dir === dir)!;
const YAML = pack('sandbox-yaml');
const GEO = pack('geo');

let temp: string;
let precompiled: PrecompiledSource;
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'sp-first-run-'));
  // Built once per pack content into out/_sandbox (reused by later runs and by bundle-backend).
  await shippedTarball(YAML);
  await shippedTarball(GEO);
  precompiled = (await shippedPrecompiled())!;
}, 300_000);
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function freshDir(name: string): Promise<string> {
  const dir = path.join(temp, name);
  await mkdir(dir);
  return dir;
}

describe('first run', () => {
  it('seeds a fresh data directory offline with the real installer, and only once', async () => {
    const dataDir = await freshDir('fresh');
    const progress: string[] = [];
    let npmRuns = 0;
    const first = await runFirstRun({
      dataDir,
      tarball: shippedTarball,
      registry: UNREACHABLE,
      packs: [YAML, GEO],
      onProgress: (m) => progress.push(m),
      onNpmSpawn: () => npmRuns++,
    });
    expect(first).toEqual({ ok: true, value: { state: 'done', installed: [YAML.name, GEO.name], workflow: EXAMPLE_WORKFLOW } });
    expect(progress).toEqual(['installing 2 shipped packs from the bundled tarballs']);
    // Both tarballs went through one npm run (it was one run per pack).
    expect(npmRuns).toBe(1);

    // The ledger tells the truth: a local tarball, scripts off, active because sandbox-only.
    const ledger = await readLedger(dataDir);
    if (!ledger.ok || !ledger.value) throw new Error('no ledger');
    for (const name of [YAML.name, GEO.name]) {
      const record = ledger.value.packs[name]!;
      expect({
        source: record.source,
        sourceLabel: record.sourceLabel,
        status: record.status,
        installMode: record.installMode,
        scripts: record.scripts,
        trust: record.trust,
      }).toEqual({ source: 'tarball-file', sourceLabel: 'unverified source', status: 'active', installMode: 'sandbox-only', scripts: [], trust: null });
    }
    // js-yaml travelled inside the tarball (bundled dependency), not from a registry.
    const yamlClosure = ledger.value.packs[YAML.name]!.closure.map((c) => c.name);
    expect(yamlClosure).toContain('js-yaml');

    const marker = JSON.parse(await readFile(path.join(dataDir, FIRST_RUN_FILE), 'utf8')) as { state: string; packs: string[] };
    expect({ state: marker.state, packs: marker.packs }).toEqual({ state: 'done', packs: [YAML.name, GEO.name] });

    const second = await runFirstRun({ dataDir, tarball: shippedTarball, registry: UNREACHABLE, packs: [YAML, GEO] });
    expect(second).toEqual({ ok: true, value: { state: 'already-done', installed: [] } });
    const after = await readLedger(dataDir);
    expect(after).toEqual(ledger);

    // The example workflow is discovered, validates and runs: YAML in the guest, a WASM call on the host.
    const catalog = await openRootCatalog(dataDir);
    if (!catalog.ok) throw new Error(catalog.message);
    const workflow = await createWorkflowStore(dataDir, WorkflowSchema).load(EXAMPLE_WORKFLOW);
    if (!workflow.ok) throw new Error(workflow.message);
    expect(validateWorkflow(workflow.value, catalog.value)).toEqual([]);
    const runner = createCodeRunner(catalog.value, { sandboxWorkers: 1, wasmLanes: 1 });
    try {
      const node = workflow.value.nodes[0]!;
      const run = await runner.run({ code: node.code, packages: node.packages, timeoutMs: 10_000 });
      if (!run.ok) throw new Error(`${run.code}: ${run.message}`);
      expect(run.value.result.ok ? run.value.result.value : run.value.result).toBe('Berlin → Paris: 877 km');
      expect(run.value.resolved.map((r) => r.specifier)).toEqual(['@nodetool-ai/sandbox-yaml', '@nodetool-ai/sandbox-geo/simplify-wasm']);
    } finally {
      await runner.close();
    }
  }, 240_000);

  it('resumes an interrupted first run without reinstalling what the ledger holds', async () => {
    const dataDir = await freshDir('interrupted');
    const partial = await runFirstRun({ dataDir, tarball: shippedTarball, registry: UNREACHABLE, packs: [YAML] });
    expect(partial.ok).toBe(true);
    // As if the app died after the first install: the marker still says incomplete.
    await writeFile(path.join(dataDir, FIRST_RUN_FILE), JSON.stringify({ format: 1, state: 'incomplete', at: new Date().toISOString(), packs: [] }));
    const resumed = await runFirstRun({ dataDir, tarball: shippedTarball, registry: UNREACHABLE, packs: [YAML, GEO] });
    // The workflow was saved by the first call, so it is not saved again.
    expect(resumed).toEqual({ ok: true, value: { state: 'done', installed: [GEO.name] } });
  }, 180_000);

  it('leaves a data directory that already holds installs alone', async () => {
    const dataDir = await freshDir('existing');
    await writeLedger(dataDir, emptyLedger('https://registry.npmjs.org/'));
    const result = await runFirstRun({ dataDir, tarball: () => Promise.reject(new Error('must not install')), packs: [YAML] });
    expect(result).toEqual({ ok: true, value: { state: 'skipped', installed: [] } });
    expect(await createWorkflowStore(dataDir, WorkflowSchema).list()).toEqual({ ok: true, value: [] });
    const again = await runFirstRun({ dataDir, tarball: () => Promise.reject(new Error('must not install')), packs: [YAML] });
    expect(again).toEqual({ ok: true, value: { state: 'already-done', installed: [] } });
  });

  it('reports a damaged marker instead of seeding over it', async () => {
    const dataDir = await freshDir('damaged');
    await writeFile(path.join(dataDir, FIRST_RUN_FILE), '{"format": 2}');
    const result = await runFirstRun({ dataDir, tarball: () => Promise.reject(new Error('must not install')), packs: [YAML] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('invalid-data');
    expect(result.message).toMatch(
      /^The first-run marker is damaged \(first-run\.json: format: .+\); delete first-run\.json in the data directory to run it again\.$/,
    );
  });

  it('refuses a shipped tarball that holds another pack, and stays incomplete', async () => {
    const dataDir = await freshDir('wrong-tarball');
    const result = await runFirstRun({ dataDir, tarball: () => shippedTarball(GEO), registry: UNREACHABLE, packs: [YAML] });
    expect(result).toEqual({
      ok: false,
      code: 'install-failed',
      message: `First run could not install the shipped packs: The tarball for ${YAML.name} holds ${GEO.name}.`,
    });
    const marker = JSON.parse(await readFile(path.join(dataDir, FIRST_RUN_FILE), 'utf8')) as { state: string };
    expect(marker.state).toBe('incomplete');
    // Nothing was recorded, and the wrong package was taken out of the tree again.
    const ledger = await readLedger(dataDir);
    expect(ledger.ok && ledger.value ? Object.keys(ledger.value.packs) : ['unreadable']).toEqual([]);
    expect((JSON.parse(await readFile(path.join(dataDir, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {}).toEqual({});
  }, 120_000);
});

/** The first discovery of a seeded root, with a compiler whose counts say what it had to do. */
async function firstDiscovery(dataDir: string) {
  const compiler = createNpmCompiler({ root: dataDir });
  const catalog = await openCatalog({ root: dataDir, onlyPacks: () => activePackNames(dataDir), compiler });
  if (!catalog.ok) throw new Error(catalog.message);
  const yaml = catalog.value.summaries().find((m) => m.specifier === YAML.name);
  return { status: yaml?.status, stats: compiler.stats() };
}

describe('first run with the precompiled cache', () => {
  it('uses it when its sha256 matches: the first discovery bundles and probes nothing', async () => {
    const dataDir = await freshDir('precompiled');
    const report = await runFirstRun({ dataDir, tarball: shippedTarball, precompiled: async () => precompiled, registry: UNREACHABLE, packs: [YAML, GEO] });
    // Only the entry of a pack this run installed is written (the file has all shipped packs).
    expect(report).toEqual({ ok: true, value: { state: 'done', installed: [YAML.name, GEO.name], workflow: EXAMPLE_WORKFLOW, precompiled: { entries: 1 } } });
    expect(await firstDiscovery(dataDir)).toEqual({ status: 'ready', stats: { bundles: 0, cacheHits: 1, probes: 0 } });
  }, 180_000);

  it('ignores a precompiled cache whose bytes changed, and compiles instead', async () => {
    const dataDir = await freshDir('precompiled-tampered');
    const text = await readFile(precompiled.file, 'utf8');
    // Still valid JSON in the right shape, with code that is not what was compiled.
    const tampered = text.replace('"source":"', '"source":"globalThis.tampered=1;');
    expect(tampered).not.toBe(text);
    const file = path.join(temp, 'tampered-precompiled.json');
    await writeFile(file, tampered);
    const report = await runFirstRun({
      dataDir,
      tarball: shippedTarball,
      precompiled: async () => ({ file, sha256: precompiled.sha256 }),
      registry: UNREACHABLE,
      packs: [YAML],
    });
    expect(report.ok && report.value.precompiled).toEqual({ ignored: 'the precompiled cache does not have the sha256 recorded when it was built' });
    expect(await firstDiscovery(dataDir)).toEqual({ status: 'ready', stats: { bundles: 2, cacheHits: 0, probes: 1 } });
  }, 180_000);

  it('recompiles a module whose installed files differ from what its precompiled entry was built from', async () => {
    const dataDir = await freshDir('precompiled-other-files');
    const report = await runFirstRun({ dataDir, tarball: shippedTarball, precompiled: async () => precompiled, registry: UNREACHABLE, packs: [YAML] });
    expect(report.ok && report.value.precompiled).toEqual({ entries: 1 });
    await appendFile(path.join(dataDir, 'node_modules', YAML.name, 'node_modules/js-yaml/dist/js-yaml.mjs'), '\n// changed after install\n');
    expect(await firstDiscovery(dataDir)).toEqual({ status: 'ready', stats: { bundles: 2, cacheHits: 0, probes: 1 } });
  }, 180_000);
});
