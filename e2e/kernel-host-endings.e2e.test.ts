// How a run ends in the browser runner (issue 14 items 8 and 9), in Debian Chromium through the
// real parity page: console entries are capped with a marker and kept at a timeout, even when the
// page's watchdog has to terminate the kernel worker stuck in one native call; a result nested too
// deeply to cross to the page is result-invalid at once, not a timeout after the deadline.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { loadFixtureDir } from '../electron/testing/fixture-dir.ts';
import { LIMITS } from '../shared/protocol/limits.ts';
import type { RunResult } from '../shared/protocol/run.ts';
import { fixtureDelivery } from './parity-catalog.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { REPO_ROOT } from './support.ts';

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  data = await tempDir('endings-data');
  app = await startAppSession(browser, data.path, path.join(REPO_ROOT, 'out/parity'), fixtureDelivery(loadFixtureDir()).catalog);
  ({ page, problems } = await app.openParity());
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

type Api = {
  sandboxParity: {
    runCode(c: string, e: unknown, t?: number): Promise<RunResult>;
    stats(): { kernelWorkersStarted: number };
    watchdogProbe(): Promise<{ wedged: RunResult; after: RunResult; workersBefore: number; workersAfter: number }>;
  };
};

function runCode(code: string, timeoutMs: number): Promise<RunResult> {
  return page.evaluate(({ code, timeoutMs }) => (window as unknown as Api).sandboxParity.runCode(code, {}, timeoutMs), { code, timeoutMs });
}

test.describe('run endings in the browser runner', () => {
  test('caps console entries with a marker and keeps them at a timeout', async () => {
    const result = await runCode('for (;;) console.log("");', 2000);
    expect(result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 2000 ms time limit and was stopped.' });
    expect(result.logs).toHaveLength(LIMITS.consoleEntries + 1);
    expect(result.logs.at(-1)).toEqual({ level: 'warn', text: `[console output truncated at ${LIMITS.consoleEntries} entries]` });
  });

  test('keeps the logs so far when the watchdog terminates a worker stuck in one native call', async () => {
    // On a runner with 1 ms of grace, so the stall (about a second) always outlasts deadline + grace.
    const probe = await page.evaluate(() => (window as unknown as Api).sandboxParity.watchdogProbe());
    expect(probe.wedged).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 80 ms time limit and was stopped.' });
    expect(probe.workersAfter).toBe(probe.workersBefore + 1);
    expect(probe.wedged.logs).toEqual([{ level: 'log', text: 'before 1' }]);
    expect(probe.after).toMatchObject({ ok: true, value: 'still serving' });
  });

  test('reports a result nested 5,000 deep at once as result-invalid', async () => {
    const started = Date.now();
    const result = await runCode('let v = 1;\nfor (let i = 0; i < 5000; i++) v = [v];\nreturn v;', 10_000);
    expect(result).toMatchObject({
      ok: false,
      code: 'result-invalid',
      message: `The code's result is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed out of the sandbox may have.`,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(problems).toEqual([]);
  });
});
