// The kernel contract fixtures again, this time through the worker pool: the same data must give
// the same outcomes on the path the app really uses (worker thread, message port, host ports).
import { afterAll, describe, expect, it } from 'vitest';
import contract from '../../../fixtures/kernel/contract.json' with { type: 'json' };
import { FixtureFileSchema, fixtureAnswer, fixtureProblems, fixtureRequest } from '../../../shared/testing/kernel-fixture.ts';
import { portedSandboxPool, withWasmPort } from '../../testing/wasm-port.ts';

const file = FixtureFileSchema.parse(contract);
const pool = portedSandboxPool({ size: 2 });
afterAll(() => pool.close());

describe('kernel contract fixtures (worker pool)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}`, async () => {
      const result = await pool.run(
        fixtureRequest(file, testCase),
        withWasmPort(
          { call: async (_moduleId, exportName) => fixtureAnswer(testCase, `wasm:${exportName}`) },
          { capability: async (name) => fixtureAnswer(testCase, name) },
        ),
      );
      expect(fixtureProblems(testCase, result)).toEqual([]);
      expect(pool.workerCount).toBe(2);
    });
  }
});
