// Isolation (issue 31) through the in-thread kernel: the fixture file fixtures/kernel/isolation.json,
// which the worker pool (fixture-dir.contract.test.ts) and Chromium (e2e/parity.e2e.test.ts) run too.
import { describe, expect, it } from 'vitest';
import isolation from '../../../fixtures/kernel/isolation.json' with { type: 'json' };
import { FixtureFileSchema, fixtureProblems } from '../../testing/kernel-fixture.ts';
import { runFixtureCaseInThread } from '../../testing/kernel-fixture-thread.ts';

const file = FixtureFileSchema.parse(isolation);

describe('isolation fixtures (in-thread)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}: ${testCase.why}`, async () => {
      const outcome = await runFixtureCaseInThread(file, testCase);
      expect(outcome.healthy).toBe(true);
      expect(fixtureProblems(testCase, outcome.result)).toEqual([]);
    });
  }
});
