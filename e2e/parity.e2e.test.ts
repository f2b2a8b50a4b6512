// Browser runner parity: every kernel contract fixture file (enumerated from fixtures/kernel at run
// time) runs in Debian Chromium through the real browser runner — modules delivered by the real web
// host by opaque id, digests recomputed with crypto.subtle, the kernel in a Web Worker, WASM on the
// browser pool — and each result is judged by the same `fixtureProblems` as the Node runs. Then the
// refusals: a tampered body, a tampered dependency and a digest the node did not expect are refused
// before anything runs.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createAppServices, type AppServices } from '../electron/services/app-services.ts';
import { startWebHost, type WebHost } from '../electron/server/web-host.ts';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { loadFixtureDir } from '../electron/testing/fixture-dir.ts';
import { fixtureProblems } from '../shared/testing/kernel-fixture.ts';
import type { RunResult } from '../shared/protocol/run.ts';
import { fixtureDelivery, type FixtureDelivery } from './parity-catalog.ts';
import { REPO_ROOT, watchProblems } from './support.ts';

const PARITY_BUILD = path.join(REPO_ROOT, 'out/parity');
const files = loadFixtureDir();

interface Served {
  readonly host: WebHost;
  readonly delivery: FixtureDelivery;
  readonly page: Page;
  readonly problems: string[];
}

let data: TempDir;
let services: AppServices;
let browser: Browser;
const hosts: WebHost[] = [];

async function serve(tamper?: ReadonlyMap<string, string>): Promise<Served> {
  const delivery = fixtureDelivery(files, tamper ? { tamper } : {});
  const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: delivery.catalog, staticDir: PARITY_BUILD, port: 0 });
  hosts.push(host);
  const page = await browser.newPage();
  const problems = watchProblems(page);
  await page.goto(host.url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
  return { host, delivery, page, problems };
}

function runCase(served: Served, fileName: string, caseName: string): Promise<RunResult> {
  const fixture = files.get(fileName);
  const entries = served.delivery.entries(fileName);
  return served.page.evaluate(
    ({ fixture, caseName, entries }) =>
      (window as unknown as { sandboxParity: { runCase(f: unknown, c: string, e: unknown): Promise<RunResult> } }).sandboxParity.runCase(
        fixture,
        caseName,
        entries,
      ),
    { fixture, caseName, entries },
  );
}

function runCode(served: Served, code: string, entries: Record<string, { moduleId: string; digest: string }>): Promise<RunResult> {
  return served.page.evaluate(
    ({ code, entries }) =>
      (window as unknown as { sandboxParity: { runCode(c: string, e: unknown): Promise<RunResult> } }).sandboxParity.runCode(code, entries),
    { code, entries },
  );
}

let main: Served;

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  data = await tempDir('parity-data');
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
  browser = sharedBrowser;
  main = await serve();
});

test.afterAll(async () => {
  for (const context of browser?.contexts() ?? []) await context.close();
  for (const host of hosts) await host.close();
  await services?.dispose();
  await data?.remove();
});

test.describe('kernel contract fixtures in Chromium (browser runner)', () => {
  for (const [fileName, file] of files) {
    test.describe(fileName, () => {
      for (const testCase of file.cases) {
        test(`${testCase.name}: ${testCase.why}`, async () => {
          const result = await runCase(main, fileName, testCase.name);
          expect(fixtureProblems(testCase, result)).toEqual([]);
        });
      }
    });
  }

  test('ran without page errors or CSP violations, cached verified modules by digest, and replaced the WASM worker a timeout stopped', async () => {
    expect(main.problems).toEqual([]);
    const stats = await main.page.evaluate(() =>
      (window as unknown as { sandboxParity: { stats(): { cachedModules: number; wasmWorkersReplaced: number } } }).sandboxParity.stats(),
    );
    expect(stats.cachedModules).toBeGreaterThan(0);
    expect(stats.wasmWorkersReplaced).toBeGreaterThanOrEqual(1);
  });
});

test.describe("the browser kernel worker's outer watchdog", () => {
  test('terminates a worker wedged in one native call at deadline + grace, replaces it, and keeps serving', async () => {
    const probe = await main.page.evaluate(() =>
      (
        window as unknown as {
          sandboxParity: { watchdogProbe(): Promise<{ wedged: RunResult; after: RunResult; workersBefore: number; workersAfter: number }> };
        }
      ).sandboxParity.watchdogProbe(),
    );
    expect(probe.wedged).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 80 ms time limit and was stopped.' });
    // The line logged before the stall survives the worker's termination (issue 14 item 8).
    expect(probe.wedged.logs).toEqual([{ level: 'log', text: 'before 1' }]);
    expect(probe.workersAfter).toBe(probe.workersBefore + 1);
    expect(probe.after).toMatchObject({ ok: true, value: 'still serving' });
  });

  test('stops respawning a kernel worker whose engine cannot start, and answers sandbox-crashed', async () => {
    const served = await serve();
    const probe = await served.page.evaluate(() =>
      (
        window as unknown as { sandboxParity: { brokenEngineProbe(): Promise<{ result: RunResult; workersStarted: number }> } }
      ).sandboxParity.brokenEngineProbe(),
    );
    expect(probe.workersStarted).toBe(3);
    expect(probe.result).toMatchObject({
      ok: false,
      code: 'sandbox-crashed',
      message: expect.stringMatching(/^The sandbox cannot start in this window: the sandbox engine could not start: /),
    });
    await served.page.close();
  });
});

test.describe('digest verification in the browser', () => {
  const fileName = 'contract.json';
  const geo = 'import { dist } from "@acme/geo";\nreturn dist({ x: 0, y: 0 }, { x: 3, y: 4 });';
  const geoEntry = () => ({ '@acme/geo': main.delivery.entries(fileName)['@acme/geo'] as { moduleId: string; digest: string } });

  test('runs the untampered module', async () => {
    const result = await runCode(main, geo, geoEntry());
    expect(result).toMatchObject({ ok: true, value: 5 });
  });

  test('refuses a tampered entry body served under its digest', async () => {
    const honest = fixtureDelivery(files);
    const id = honest.deliveryId(fileName, 'js:geo');
    const served = await serve(new Map([[id, 'export function dist() { return 666; }\n']]));
    const result = await runCode(served, geo, { '@acme/geo': honest.entries(fileName)['@acme/geo'] as { moduleId: string; digest: string } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('digest-mismatch');
    expect(result.message).toMatch(
      /^Module @acme\/geo \(f_[0-9a-f]{32}\) was refused: what was delivered hashes to [0-9a-f]{12}…, not to its digest [0-9a-f]{12}…\. Nothing was run; reload the page or run in the main process\.$/,
    );
    expect(result.receipt.modules).toEqual([]);
    await served.page.close();
  });

  test('refuses a tampered dependency (the entry body is intact)', async () => {
    const honest = fixtureDelivery(files);
    const dep = honest.deliveryId(fileName, 'js:geo/lib/math.js');
    const served = await serve(new Map([[dep, 'export const sq = (x) => 666;\n']]));
    const result = await runCode(served, geo, { '@acme/geo': honest.entries(fileName)['@acme/geo'] as { moduleId: string; digest: string } });
    expect(result).toMatchObject({ ok: false, code: 'digest-mismatch' });
    if (!result.ok) expect(result.message).toContain('Module @acme/geo internal lib/math.js');
    await served.page.close();
  });

  test('refuses a module whose digest is not the one the node expects, even when it is served honestly', async () => {
    const entry = geoEntry()['@acme/geo'];
    const wrong = { moduleId: entry.moduleId, digest: entry.digest.replace(/^./, (c) => (c === '0' ? '1' : '0')) };
    // Asked with ?digest= the host answers stale-digest; the runner reports the host's sentence.
    const result = await runCode(main, geo, { '@acme/geo': wrong });
    expect(result).toMatchObject({ ok: false, code: 'stale-digest' });
  });
});
