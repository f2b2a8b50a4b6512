// No run can observe a byte another run left behind — in the browser runner too. Debian Chromium
// opens the parity page from the real web host; its one kernel Web Worker runs run A (a secret in
// its inputs, spread over the engine's heap) and then run B, which asks every guest primitive
// that hands out fresh memory for its bytes (shared/testing/isolation-probe.ts). The worker puts
// its sandbox's engine memory back to its snapshot after each run, and makes a new sandbox when a
// run grew it; 150 runs that each take 8 MB then show that discarded instances are collected (the worker is never replaced and no run fails to get an engine). Each
// run has a time origin of its own, as in the Node pool.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import type { RunResult } from '../shared/protocol/run.ts';
import type { FixtureFile } from '../shared/testing/kernel-fixture.ts';
import { isolationSecret, mayBeDirty, PLANT_CODE, SCAN_CODE, scanInputs, type ScanEntry } from '../shared/testing/isolation-probe.ts';
import { fixtureDelivery } from './parity-catalog.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { REPO_ROOT } from './support.ts';

const PARITY_BUILD = path.join(REPO_ROOT, 'out/parity');

/** A module whose state a run may fill: served through the real delivery route, so runs importing it get its set's image. */
const IMAGE_FILE = 'isolation-image.json';
const imageModules: Pick<FixtureFile, 'entries' | 'modules'> = {
  entries: { '@t/lib': 'js:lib' },
  modules: {
    'js:lib': {
      moduleId: 'js:lib',
      kind: 'js',
      packName: '@t/lib',
      packVersion: '1.0.0',
      displayName: '@t/lib',
      source: 'export const kept = [];\nexport function keep(v) { kept.push(v); return kept.length; }\n',
      imports: {},
      digest: 'a'.repeat(64),
    },
  },
};
const delivery = fixtureDelivery(new Map([[IMAGE_FILE, { description: 'run isolation on a module image', ...imageModules, cases: [] }]]));

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

interface PageApi {
  runCase(fixture: unknown, caseName: string, entries: unknown): Promise<RunResult>;
  runCode(code: string, entries: unknown, timeoutMs?: number): Promise<RunResult>;
  stats(): { kernelWorkersStarted: number };
}

function runCase(fixture: FixtureFile, caseName: string, entries: unknown = {}): Promise<RunResult> {
  return page.evaluate(
    ({ fixture, caseName, entries }) => (window as unknown as { sandboxParity: PageApi }).sandboxParity.runCase(fixture, caseName, entries),
    { fixture, caseName, entries },
  );
}

function kernelWorkersStarted(): Promise<number> {
  return page.evaluate(() => (window as unknown as { sandboxParity: PageApi }).sandboxParity.stats().kernelWorkersStarted);
}

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  data = await tempDir('run-isolation-data');
  app = await startAppSession(browser, data.path, PARITY_BUILD, delivery.catalog);
  ({ page, problems } = await app.openParity());
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

test.describe('run isolation in the browser runner (Chromium)', () => {
  test('gives run B no byte of the secret run A held, from any primitive that hands out fresh memory', async () => {
    const secret = isolationSecret();
    const fixture: FixtureFile = {
      description: 'run isolation',
      entries: {},
      modules: {},
      cases: [
        { name: 'plant', why: 'run A holds the secret', code: PLANT_CODE, inputs: { apiKey: secret }, timeoutMs: 30_000, expect: { ok: true, value: 509 } },
        { name: 'scan', why: 'run B looks for it', code: SCAN_CODE, inputs: scanInputs(secret), timeoutMs: 30_000, expect: { ok: true, value: null } },
      ],
    };
    const before = await kernelWorkersStarted();
    expect(await runCase(fixture, 'plant')).toMatchObject({ ok: true, value: 509 });
    const scanned = await runCase(fixture, 'scan');
    expect(scanned).toMatchObject({ ok: true });
    if (!scanned.ok) return;
    const entries = Object.entries(scanned.value as Record<string, ScanEntry>);
    expect(entries.length).toBeGreaterThanOrEqual(29);
    const expected = Object.fromEntries(entries.map(([name]) => [name, { secret: false, dirty: mayBeDirty(name) ? expect.any(Boolean) : false }]));
    expect(Object.fromEntries(entries)).toEqual(expected);
    // Both runs on the same worker: isolation came from fresh engines, not from a new worker.
    expect(await kernelWorkersStarted()).toBe(before);
  });

  test("gives run B no byte of the secret run A held in a module's state, on the module set's image", async () => {
    const secret = isolationSecret();
    const fixture: FixtureFile = {
      description: 'run isolation on a module image',
      ...imageModules,
      cases: [
        {
          name: 'plant',
          why: "run A keeps the secret in the module's state",
          code: 'import { keep } from "@t/lib";\nconst held = [];\nfor (let i = 0; i < 500; i++) held.push(keep(apiKey + ":" + i));\nreturn held.length;',
          declare: ['@t/lib'],
          inputs: { apiKey: secret },
          timeoutMs: 30_000,
          expect: { ok: true, value: 500 },
        },
        {
          name: 'scan',
          why: 'run B imports the same module and looks for it',
          code: `import { kept } from "@t/lib";\nif (kept.length !== 0) return "kept";\n${SCAN_CODE}`,
          declare: ['@t/lib'],
          inputs: scanInputs(secret),
          timeoutMs: 30_000,
          expect: { ok: true, value: null },
        },
      ],
    };
    const before = await kernelWorkersStarted();
    const delivered = delivery.entries(IMAGE_FILE);
    expect(await runCase(fixture, 'plant', delivered)).toMatchObject({ ok: true, value: 500 });
    const scanned = await runCase(fixture, 'scan', delivered);
    expect(scanned).toMatchObject({ ok: true });
    if (!scanned.ok) return;
    const entries = Object.entries(scanned.value as Record<string, ScanEntry>);
    expect(entries.length).toBeGreaterThanOrEqual(29);
    expect(Object.fromEntries(entries)).toEqual(
      Object.fromEntries(entries.map(([name]) => [name, { secret: false, dirty: mayBeDirty(name) ? expect.any(Boolean) : false }])),
    );
    expect(await kernelWorkersStarted()).toBe(before);
  });

  test('gives each run its own time origin: performance counts from the run, never from the sandbox', async () => {
    const before = await kernelWorkersStarted();
    const seen = await page.evaluate(async () => {
      const api = (window as unknown as { sandboxParity: PageApi }).sandboxParity;
      const out: { origin: number; now: number; date: number; wallMs: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const result = await api.runCode('return [performance.timeOrigin, performance.now(), Date.now()];', {});
        if (!result.ok) throw new Error(result.message);
        const [origin, now, date] = result.value as [number, number, number];
        out.push({ origin, now, date, wallMs: result.receipt.wallMs });
        await new Promise((done) => setTimeout(done, 20));
      }
      return out;
    });
    for (const run of seen) {
      expect(run.now).toBeGreaterThanOrEqual(0);
      expect(run.now).toBeLessThanOrEqual(run.wallMs);
      expect(Math.abs(run.date - run.now - run.origin)).toBeLessThanOrEqual(run.wallMs + 2);
    }
    expect(new Set(seen.map((run) => run.origin)).size).toBe(3);
    expect(await kernelWorkersStarted()).toBe(before);
  });

  test('runs 150 invocations of 8 MB each on one worker: discarded engines are collected', async () => {
    const before = await kernelWorkersStarted();
    const outcome = await page.evaluate(async () => {
      const api = (window as unknown as { sandboxParity: PageApi }).sandboxParity;
      const failures: string[] = [];
      for (let i = 0; i < 150; i++) {
        const result = await api.runCode('const keep = new Uint8Array(8 << 20); keep[1] = 1; return keep.length;', {});
        if (!result.ok || result.value !== 8 << 20) failures.push(JSON.stringify(result.ok ? result.value : [result.code, result.message]));
      }
      return failures;
    });
    expect(outcome).toEqual([]);
    expect(await kernelWorkersStarted()).toBe(before);
    expect(problems).toEqual([]);
  });
});
