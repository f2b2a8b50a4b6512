// The browser fixture runner page: the e2e parity suite and the browser bench open it from the web
// host and hand it one fixture case at a time (the fixture file's data, as the Node runners read
// it). It runs the case with the real browser runner — module delivery by opaque id, digest
// checks, the kernel in a Web Worker, the WASM pool on Web Workers — and gives the RunResult back;
// the Node side judges it with the same `fixtureProblems` as the Node runs. `runNode` is the Code
// node's "Run in this window" path against the host's real catalog. The host side a case
// scripts (capability answers, scripted WASM answers) is the same `fixtureAnswer` as on Node.

import '../../zod-jitless.ts';
import { FixtureFileSchema, fixtureAnswer, fixtureRequest, scriptsWasm } from '../../../shared/testing/kernel-fixture.ts';
import type { RunResult } from '../../../shared/protocol/run.ts';
import type { RequestOf } from '../../../shared/contract/methods.ts';
import type { Result } from '../../../shared/protocol/result.ts';
import { createHttpClient } from '../../api/http-client.ts';
import { runNodeInWindow, type CodeRunValue } from '../run-node-in-window.ts';
import { BrowserRunner } from '../browser-runner.ts';
import { pagePowers } from '../browser-powers.ts';
import { DigestCache, loadModules, type ExpectedEntries } from '../module-source.ts';

export interface ParityApi {
  /** Runs case `caseName` of `fixture`; `entries` maps each declared specifier to its delivered id and digest. */
  runCase(fixture: unknown, caseName: string, entries: ExpectedEntries): Promise<RunResult>;
  /** Runs code against the delivered modules with this window's own (refusing) capability policy. */
  runCode(code: string, entries: ExpectedEntries, timeoutMs?: number): Promise<RunResult>;
  /** "Run in this window" for a Code node against the host's real catalog, as the Code node button does. */
  runNode(node: RequestOf<'code.run'>): Promise<Result<CodeRunValue>>;
  /** Wall times (ms) of `runs` back-to-back runs of one case, measured in the page (for the bench). */
  timeCase(fixture: unknown, caseName: string, entries: ExpectedEntries, runs: number): Promise<number[]>;
  /**
   * The outer watchdog: code that logs a line, then is wedged in one native call (which the
   * interrupt handler cannot stop), on a runner with 1 ms of grace; then a plain run on the same runner.
   */
  watchdogProbe(): Promise<{ wedged: RunResult; after: RunResult; workersBefore: number; workersAfter: number }>;
  /** Wall times (ms) of fetching and verifying `entries` with an empty cache each time (for the bench). */
  timeColdLoad(entries: ExpectedEntries, runs: number): Promise<number[]>;
  /** A runner whose engine cannot load: the host must stop respawning and answer, not loop. */
  brokenEngineProbe(): Promise<{ result: RunResult; workersStarted: number }>;
  stats(): { cachedModules: number; kernelWorkersStarted: number; wasmWorkersReplaced: number };
}

const token = /(?:^#|&)token=([A-Za-z0-9_-]{1,256})(?:&|$)/.exec(location.hash)?.[1];
history.replaceState(null, '', location.pathname + location.search);
const status = document.getElementById('status') as HTMLElement;

if (token === undefined) {
  status.textContent = 'no token';
} else {
  const runner = new BrowserRunner(pagePowers(location.origin, token));
  const client = createHttpClient(location.origin, token);
  window.addEventListener('pagehide', () => {
    runner.close();
    client.close();
  });
  const api: ParityApi = {
    async runCase(fixture, caseName, entries) {
      const file = FixtureFileSchema.parse(fixture);
      const testCase = file.cases.find((c) => c.name === caseName);
      if (!testCase) throw new Error(`no case ${caseName}`);
      const request = fixtureRequest(file, testCase);
      const declared: Record<string, { moduleId: string; digest: string }> = {};
      for (const specifier of Object.keys(request.entries)) {
        const entry = entries[specifier];
        if (!entry) throw new Error(`no delivered entry for ${specifier}`);
        declared[specifier] = entry;
      }
      return runner.run({
        code: request.code,
        entries: declared,
        inputs: request.inputs,
        grants: request.grants,
        timeoutMs: request.timeoutMs,
        ...(request.isolated ? { isolated: request.isolated } : {}),
        capability: async (name) => fixtureAnswer(testCase, name),
        ...(scriptsWasm(testCase) ? { wasm: async (_moduleId: string, exportName: unknown) => fixtureAnswer(testCase, `wasm:${String(exportName)}`) } : {}),
      });
    },
    runCode(code, entries, timeoutMs) {
      return runner.run({ code, entries, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    },
    async timeCase(fixture, caseName, entries, runs) {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        const result = await api.runCase(fixture, caseName, entries);
        samples.push(performance.now() - start);
        if (i === 0 && !result.ok) throw new Error(`${caseName} failed in the bench: ${result.code} ${result.message}`);
      }
      return samples;
    },
    async watchdogProbe() {
      const strict = new BrowserRunner({ ...pagePowers(location.origin, token), kernelGraceMs: 1, wasmWorkers: 1 });
      try {
        await strict.run({ code: 'return 1;', entries: {} });
        const workersBefore = strict.kernelWorkersStarted;
        // Idle long enough for the worker to prepare its next engine, and a deadline (80 ms, the
        // watchdog at 81 ms from dispatch) that leaves a loaded machine time to log the line before
        // the stall (0.4-1 s in Chromium, measured) that only the watchdog can end.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const wedged = await strict.run({
          code: 'console.log("before", 1);\nconst big = new Array(2e6).fill("abcdefgh");\nreturn JSON.stringify(big).length;',
          entries: {},
          timeoutMs: 80,
        });
        const workersAfter = strict.kernelWorkersStarted;
        const after = await strict.run({ code: 'return "still serving";', entries: {} });
        return { wedged, after, workersBefore, workersAfter };
      } finally {
        strict.close();
      }
    },
    async timeColdLoad(entries, runs) {
      const powers = pagePowers(location.origin, token);
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        const loaded = await loadModules(entries, powers, new DigestCache());
        samples.push(performance.now() - start);
        if (!loaded.ok) throw new Error(`cold load failed: ${loaded.code} ${loaded.message}`);
      }
      return samples;
    },
    async brokenEngineProbe() {
      const broken = new BrowserRunner({
        ...pagePowers(location.origin, token),
        engineWasmUrl: new URL('./assets/no-such-engine.wasm', location.href).href,
        wasmWorkers: 1,
      });
      try {
        const result = await broken.run({ code: 'return 1;', entries: {} });
        return { result, workersStarted: broken.kernelWorkersStarted };
      } finally {
        broken.close();
      }
    },
    runNode: (node) => runNodeInWindow(client, runner, node),
    stats: () => ({ cachedModules: runner.cache.size, kernelWorkersStarted: runner.kernelWorkersStarted, wasmWorkersReplaced: runner.wasmWorkersReplaced }),
  };
  (window as unknown as { sandboxParity: ParityApi }).sandboxParity = api;
  status.textContent = 'ready';
}
