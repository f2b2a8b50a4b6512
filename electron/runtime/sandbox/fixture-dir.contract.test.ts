// Every kernel contract fixture file in fixtures/kernel (enumerated at run time, like the browser
// parity suite in e2e/parity.e2e.test.ts) through the Node path the app uses: the sandbox worker
// pool, and for files that ship WASM binaries the real dispatcher over the real WASM pool. A file
// added to the directory runs here and in Chromium with no other change.
import { afterAll, describe, expect, it } from 'vitest';
import { createWasmDispatcher } from '../../../shared/sandbox/wasm-dispatcher.ts';
import { fixtureAnswer, fixtureExecutableModules, fixtureProblems, fixtureRequest, scriptsWasm } from '../../../shared/sandbox/kernel-fixture.ts';
import { WasmPool } from '../wasm/wasm-pool.ts';
import { loadFixtureDir } from './fixture-dir.ts';
import { SandboxPool } from './sandbox-pool.ts';

const files = loadFixtureDir();
const pool = new SandboxPool({ size: 2 });
const wasmPool = new WasmPool({ size: 2 });
afterAll(async () => {
  await pool.close();
  await wasmPool.dispose();
});

describe('kernel contract fixture directory (worker pool, WASM pool)', () => {
  it('holds the contract and WASM fixture files', () => {
    expect([...files.keys()]).toEqual(expect.arrayContaining(['contract.json', 'wasm.json']));
  });
  for (const [fileName, file] of files) {
    const modules = fixtureExecutableModules(file);
    describe(fileName, () => {
      for (const testCase of file.cases) {
        it(`${testCase.name}: ${testCase.why}`, async () => {
          const dispatcher = createWasmDispatcher({ modules }, wasmPool);
          try {
            const result = await pool.run(fixtureRequest(file, testCase), {
              capability: async (name) => fixtureAnswer(testCase, name),
              wasm: {
                call: async (moduleId, exportName, args) => (scriptsWasm(testCase) ? fixtureAnswer(testCase, `wasm:${exportName}`) : dispatcher.bridge(moduleId, exportName, args)),
              },
            });
            expect(fixtureProblems(testCase, result)).toEqual([]);
          } finally {
            dispatcher.close();
          }
        });
      }
    });
  }
});
