// The guest's web-standard globals (guest-web.ts and its parts) through the real kernel: each API's
// behaviour where the standards say what it must be, the Function("return this") idiom, the
// Intl sentence, and that nothing one run leaves in these APIs is there in the next run of the
// same sandbox. The fixture file fixtures/kernel/web-apis.json runs the portable cases here, in
// the worker pool and in Chromium.
import { describe, expect, it } from 'vitest';
import webApis from '../../../fixtures/kernel/web-apis.json' with { type: 'json' };
import { NO_GRANTS, type RunReceipt } from '../../protocol/run.ts';
import { FixtureFileSchema, fixtureAnswer, fixtureProblems, fixtureRequest } from '../../testing/kernel-fixture.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel, UNKNOWN_CALLER } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const file = FixtureFileSchema.parse(webApis);

describe('web-apis fixtures (in-thread)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}: ${testCase.why}`, async () => {
      const engine = await loadQuickJsNg();
      const outcome = await runKernel(fixtureRequest(file, testCase), {
        engine,
        ...SYSTEM_CLOCK,
        hostCall: async (_kind, name) => fixtureAnswer(testCase, name),
      });
      expect(outcome.healthy).toBe(true);
      expect(fixtureProblems(testCase, outcome.result)).toEqual([]);
    });
  }
});

describe('a capability called by a web global counts as called through a built-in', () => {
  const denied = async (code: string): Promise<RunReceipt['denied']> => {
    const engine = await loadQuickJsNg();
    const outcome = await runKernel(
      { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 20_000 },
      { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false, code: 'internal', message: 'no host call is granted here' }) },
    );
    expect(outcome.healthy).toBe(true);
    return outcome.result.receipt.denied;
  };

  it("names the node's code when its own callback calls the capability", async () => {
    const got = await denied(
      'const p = []; new URLSearchParams("K=v").forEach((v, k) => { p.push(getSecret(k).catch(() => 0)); }); await Promise.all(p); return 1;',
    );
    expect(got.map((d) => [d.request, d.from])).toEqual([['getSecret("K")', "the node's code"]]);
  });

  it('records it as unknown when the web global itself calls the capability (forEach(getSecret))', async () => {
    const got = await denied('new URLSearchParams("K=v").forEach(getSecret);\nawait null;\nreturn 1;');
    expect(got.map((d) => [d.request, d.from])).toEqual([['getSecret("v")', UNKNOWN_CALLER]]);
  });
});
