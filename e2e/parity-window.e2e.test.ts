// "Run in this window" against "Run in the main process": the same Code nodes, over the real web
// host and the real catalog of an installed pack (JS entry, internal helper, WASM entry), give the
// same result, logs and receipt (except wall time) in Chromium's browser runner as through the
// contract's code.run — including WASM conversions, a WASM trap, the dispatcher's argument checks
// and denied imports. A granted capability is the one deliberate difference: this window refuses it.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { RequestOf, ValueOf } from '../shared/contract/methods.ts';
import type { Result } from '../shared/protocol/result.ts';
import { fixtureDataDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { REPO_ROOT } from './support.ts';

const GEO = path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo');
type Run = Result<ValueOf<'code.run'>>;

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir(GEO);
  app = await startAppSession(browser, data.path, path.join(REPO_ROOT, 'out/parity'));
  ({ page, problems } = await app.openParity());
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

async function inMain(node: RequestOf<'code.run'>): Promise<Run> {
  const response = await fetch(`${app.host.origin}/api/rpc/code.run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${app.host.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(node),
  });
  return (await response.json()) as Run;
}

async function inWindow(node: RequestOf<'code.run'>): Promise<Run> {
  // Through JSON: playwright's serializable-type check recurses too deep on the contract's types.
  const text: string = await page.evaluate(
    async (n: string) =>
      JSON.stringify(await (window as unknown as { sandboxParity: { runNode(n: unknown): Promise<unknown> } }).sandboxParity.runNode(JSON.parse(n))),
    JSON.stringify(node),
  );
  return JSON.parse(text) as Run;
}

/** Everything but wall time. */
function comparable(run: Run): unknown {
  if (!run.ok) return run;
  const { receipt, ...rest } = run.value.result;
  const { wallMs: _wallMs, ...stable } = receipt;
  return { result: { ...rest, receipt: stable }, resolved: run.value.resolved };
}

/** What the main process answers (so a pair of equal failures cannot pass for parity). */
const EXPECT: Record<string, { ok: true; value: unknown } | { ok: false; code: string }> = {
  'JS entry with an internal helper': { ok: true, value: 111 },
  'WASM i32 add with inputs': { ok: true, value: [42, -2147483648] },
  'WASM f64 export by its as-name': { ok: true, value: [3, 0.30000000000000004] },
  'WASM argument check': { ok: true, value: ['wasm-argument', expect.any(String)] },
  'undeclared import denied': { ok: false, code: 'import-denied' },
  'node builtin denied': { ok: false, code: 'import-denied' },
  'runtime error': { ok: false, code: 'runtime-error' },
  timeout: { ok: false, code: 'timeout' },
};

const NODES: Record<string, RequestOf<'code.run'>> = {
  'JS entry with an internal helper': {
    code: 'import { haversine } from "@acme/geo";\nconsole.log("from the node");\nreturn Math.round(haversine({ lat: 0, lon: 0 }, { lat: 0, lon: 1 }));',
    packages: [{ specifier: '@acme/geo' }],
  },
  'WASM i32 add with inputs': {
    code: 'import { add } from "@acme/geo/simplify-wasm";\nreturn [await add(x, 2), await add(2147483647, 1)];',
    packages: [{ specifier: '@acme/geo/simplify-wasm' }],
    inputs: { x: 40 },
  },
  'WASM f64 export by its as-name': {
    code: 'import { scale } from "@acme/geo/simplify-wasm";\nreturn [await scale(1.5, 2), await scale(0.1, 3)];',
    packages: [{ specifier: '@acme/geo/simplify-wasm' }],
  },
  'WASM argument check': {
    code: 'import { add } from "@acme/geo/simplify-wasm";\ntry { await add("1", 2); } catch (e) { return [e.code, e.message]; }',
    packages: [{ specifier: '@acme/geo/simplify-wasm' }],
  },
  'undeclared import denied': { code: 'import { add } from "@acme/geo/simplify-wasm";\nreturn 1;', packages: [] },
  'node builtin denied': { code: 'import fs from "node:fs";\nreturn 1;', packages: [{ specifier: '@acme/geo' }] },
  'runtime error': { code: 'throw new TypeError("nope");', packages: [] },
  timeout: { code: 'for (;;) {}', packages: [], timeoutMs: 300 },
};

test.describe('Run in this window gives the main process result', () => {
  for (const [name, node] of Object.entries(NODES)) {
    test(name, async () => {
      const main = await inMain(node);
      const here = await inWindow(node);
      expect(main.ok && main.value.result).toMatchObject(EXPECT[name] as Record<string, unknown>);
      expect(comparable(here)).toEqual(comparable(main));
    });
  }

  test('an unknown declaration fails both ways with the same code', async () => {
    const node = { code: 'return 1;', packages: [{ specifier: '@nobody/nothing' }] };
    expect(await inWindow(node)).toMatchObject({ ok: false, code: (await inMain(node)).ok ? 'x' : 'unknown-specifier' });
  });

  test('a granted fetch is refused in this window with a sentence that says where it works', async () => {
    const here = await inWindow({ code: 'return await fetch("https://example.com/");', packages: [], fetchHosts: ['example.com'] });
    expect(here.ok && here.value.result).toMatchObject({
      ok: false,
      code: 'capability-denied',
      message: expect.stringContaining('is not available when the code runs in this window'),
    });
  });

  test('ran without page errors or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
