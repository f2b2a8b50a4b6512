// The guest's web-standard globals (guest-web.ts and its parts) through the real kernel: each API's
// behaviour where the standards say what it must be, the Function("return this") idiom, the
// Intl sentence, and that nothing one run leaves in these APIs is there in the next run of the
// same sandbox. The fixture file fixtures/kernel/web-apis.json runs the portable cases here, in
// the worker pool and in Chromium.
import { describe, expect, it } from 'vitest';
import webApis from '../../fixtures/kernel/web-apis.json' with { type: 'json' };
import { FixtureFileSchema, fixtureAnswer, fixtureProblems, fixtureRequest } from '../testing/kernel-fixture.ts';
import { loadQuickJsNg } from './engine.ts';
import { runKernel } from './kernel.ts';
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
