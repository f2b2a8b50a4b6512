// Bench section "browser": in-browser invocation latency next to the Node figure for the same
// kernel contract fixture cases. The browser side is Debian Chromium (playwright-core) on the
// browser fixture runner page served by the real web host: the runner resolves the case's modules
// (digest-keyed cache hits after the first run), runs the kernel in its Web Worker and WASM on its
// worker pool; times are taken inside the page. The Node side runs the same case through the
// sandbox worker pool and the WASM pool. Skipped with a note when Chromium is not installed.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { createAppServices } from '../../electron/services/app-services.ts';
import { startWebHost } from '../../electron/server/web-host.ts';
import { tempDir } from '../../electron/testing/test-support.ts';
import { loadFixtureDir } from '../../electron/testing/fixture-dir.ts';
import { WasmPool } from '../../electron/testing/wasm-pool.ts';
import { portedSandboxPool, withWasmPort } from '../../electron/testing/wasm-port.ts';
import { createWasmDispatcher } from '../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { fixtureAnswer, fixtureExecutableModules, fixtureRequest, scriptsWasm } from '../../shared/testing/kernel-fixture.ts';
import { fixtureDelivery } from '../../e2e/parity-catalog.ts';
import { CHROMIUM, launchChromium, REPO_ROOT } from '../../e2e/support.ts';
import { measure, printRatio, printTable, type BenchSection, type Stats } from './harness.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
/** file → case: a trivial-ish JS import graph, a real WASM call, and the hardening probe. */
const CASES: readonly [string, string][] = [
  ['contract.json', 'module-cache-hits'],
  ['contract.json', 'hardening-before-pack-evaluation'],
  ['wasm.json', 'wasm-i32-add-and-wrap'],
];

function stats(label: string, samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { label, runs: sorted.length, minMs: sorted[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}

export const browserSection: BenchSection = {
  name: 'browser',
  async run() {
    if (!existsSync(CHROMIUM)) {
      console.log(`\n## browser\n(skipped: ${CHROMIUM} is not installed)`);
      return;
    }
    const files = loadFixtureDir();
    await build({ configFile: path.join(REPO_ROOT, 'renderer/runner/parity/vite.config.ts'), logLevel: 'warn' });
    const data = await tempDir('bench-browser');
    const created = await createAppServices({ dataDir: data.path });
    if (!created.ok) throw new Error(created.message);
    const delivery = fixtureDelivery(files);
    const host = await startWebHost({
      dispatcher: created.value.dispatcher,
      events: created.value.events,
      catalog: delivery.catalog,
      staticDir: path.join(REPO_ROOT, 'out/parity'),
      port: 0,
    });
    const browser = await launchChromium();
    const pool = portedSandboxPool({ size: 1 });
    const wasmPool = new WasmPool({ size: 2 });
    try {
      const page = await browser.newPage();
      await page.goto(host.url);
      await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
      const rows: Stats[] = [];
      const pairs: [Stats, Stats][] = [];
      for (const [fileName, caseName] of CASES) {
        const file = files.get(fileName);
        const testCase = file?.cases.find((c) => c.name === caseName);
        if (!file || !testCase) throw new Error(`bench case ${fileName}#${caseName} is missing`);
        const modules = fixtureExecutableModules(file);
        const node = await measure(
          `node   ${caseName}`,
          RUNS,
          async () => {
            const dispatcher = createWasmDispatcher({ modules }, wasmPool);
            try {
              const result = await pool.run(
                fixtureRequest(file, testCase),
                withWasmPort(
                  {
                    call: async (id, exportName, args) =>
                      scriptsWasm(testCase) ? fixtureAnswer(testCase, `wasm:${String(exportName)}`) : dispatcher.bridge(id, exportName, args),
                  },
                  { capability: async (name) => fixtureAnswer(testCase, name) },
                ),
              );
              if (!result.ok && testCase.expect.ok) throw new Error(`${caseName} failed on Node: ${result.message}`);
            } finally {
              dispatcher.close();
            }
          },
          3,
        );
        const samples = await page.evaluate(
          ({ fixture, caseName, entries, runs }) =>
            (window as unknown as { sandboxParity: { timeCase(f: unknown, c: string, e: unknown, r: number): Promise<number[]> } }).sandboxParity.timeCase(
              fixture,
              caseName,
              entries,
              runs,
            ),
          { fixture: file, caseName, entries: delivery.entries(fileName), runs: RUNS + 3 },
        );
        const inBrowser = stats(`chrome ${caseName}`, samples.slice(3));
        rows.push(node, inBrowser);
        pairs.push([inBrowser, node]);
      }
      // What the cache saves: fetching and verifying a case's modules from the web host, cold.
      const coldRows: Stats[] = [];
      for (const [fileName, caseName] of CASES) {
        const entries = delivery.entries(fileName);
        const declared = files.get(fileName)?.cases.find((c) => c.name === caseName)?.declare ?? Object.keys(entries);
        const wanted = Object.fromEntries(declared.map((s) => [s, entries[s]]));
        const samples = await page.evaluate(
          ({ wanted, runs }) =>
            (window as unknown as { sandboxParity: { timeColdLoad(e: unknown, r: number): Promise<number[]> } }).sandboxParity.timeColdLoad(wanted, runs),
          { wanted, runs: Math.min(RUNS, 50) + 3 },
        );
        coldRows.push(stats(`fetch+verify ${caseName} (${declared.length} entr${declared.length === 1 ? 'y' : 'ies'})`, samples.slice(3)));
      }
      printTable('browser: one invocation of a contract fixture, Chromium browser runner vs Node worker pool', rows);
      printTable('browser: modules fetched from the web host and digest-verified with crypto.subtle, empty cache', coldRows);
      for (const [ours, anchor] of pairs) printRatio(`${ours.label.slice(7)} browser/node`, ours, anchor);
      await page.close();
    } finally {
      await browser.close();
      await pool.close();
      await wasmPool.dispose();
      await host.close();
      await created.value.dispose();
      await data.remove();
    }
  },
};
