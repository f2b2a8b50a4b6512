// Every kernel contract fixture file in fixtures/kernel (enumerated at run time, like the browser
// parity suite in e2e/parity.e2e.test.ts) through the Node path the app uses: the sandbox worker
// pool, and for files that ship WASM binaries a plan compiled here and answered by the sandbox
// worker's own dispatcher and WASM lanes. Cases that script their WASM answers go through a
// main-thread port instead. A file added to the directory runs here and in Chromium with no
// other change.
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureAnswer, fixtureExecutableModules, fixtureProblems, fixtureRequest, scriptsWasm } from '../../../shared/testing/kernel-fixture.ts';
import { WasmModuleCache } from '../wasm/module-cache.ts';
import { buildWasmPlan } from '../wasm/wasm-plan.ts';
import { loadFixtureDir } from '../../testing/fixture-dir.ts';
import { portedSandboxPool, withWasmPort } from '../../testing/wasm-port.ts';

const files = loadFixtureDir();
const pool = portedSandboxPool({ size: 2 });
const compiled = new WasmModuleCache();
afterAll(async () => {
  await pool.close();
});

describe('kernel contract fixture directory (worker pool, WASM lanes)', () => {
  it('holds the contract and WASM fixture files', () => {
    expect([...files.keys()]).toEqual(expect.arrayContaining(['contract.json', 'wasm.json']));
  });
  for (const [fileName, file] of files) {
    const modules = fixtureExecutableModules(file);
    describe(fileName, () => {
      for (const testCase of file.cases) {
        it(`${testCase.name}: ${testCase.why}`, async () => {
          const capability = async (name: string) => fixtureAnswer(testCase, name);
          const ports = scriptsWasm(testCase)
            ? withWasmPort({ call: async (_moduleId, exportName) => fixtureAnswer(testCase, `wasm:${String(exportName)}`) }, { capability })
            : { capability, wasm: { plan: await buildWasmPlan({ modules }, compiled) } };
          const result = await pool.run(fixtureRequest(file, testCase), ports);
          expect(fixtureProblems(testCase, result)).toEqual([]);
        });
      }
    });
  }
});
