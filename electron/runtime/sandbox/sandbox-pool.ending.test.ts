// How a run ends, through the real pool and worker threads: its console output is capped in
// entries as well as bytes and survives a timeout, even one the watchdog has to enforce by
// terminating the worker; a result or message that cannot cross to the main thread ends the run
// at once with a tagged failure instead of waiting for the deadline.
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { portedSandboxPool, withWasmPort } from '../../testing/wasm-port.ts';
import { SandboxPool } from './sandbox-pool.ts';

function request(code: string, timeoutMs = 2000): KernelRunRequest {
  return { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs };
}

const pool = portedSandboxPool({ size: 1, graceMs: 500 });
afterAll(() => pool.close());

describe('console output of a run', () => {
  it('caps entries, not only bytes: endless empty lines keep the first entries and a marker, and the timeout keeps them', async () => {
    // The deadline leaves room for a cold worker on a loaded machine to reach the cap.
    const result = await pool.run(request('for (;;) console.log("")', 2000));
    expect(result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 2000 ms time limit and was stopped.' });
    expect(result.logs).toHaveLength(LIMITS.consoleEntries + 1);
    expect(result.logs.slice(0, 2)).toEqual([
      { level: 'log', text: '' },
      { level: 'log', text: '' },
    ]);
    expect(result.logs.at(-1)).toEqual({ level: 'warn', text: `[console output truncated at ${LIMITS.consoleEntries} entries]` });
  });

  it('keeps the logs so far when the watchdog terminates a worker stuck in one native call', async () => {
    const strict = new SandboxPool({ size: 1, graceMs: 1 });
    try {
      await strict.run(request('1'));
      // The stall (seconds, measured) starts well inside the deadline; only the watchdog can end it.
      const result = await strict.run(
        request('console.log("before", 1);\nconsole.warn("still before");\nJSON.stringify(new Array(2e6).fill("abcdefgh")).length', 300),
      );
      expect(result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 300 ms time limit and was stopped.' });
      expect(strict.started).toBe(2);
      expect(result.logs).toEqual([
        { level: 'log', text: 'before 1' },
        { level: 'warn', text: 'still before' },
      ]);
    } finally {
      await strict.close();
    }
  });
});

describe('what cannot cross to the main thread', () => {
  it('reports a result nested 5,000 deep at once as result-invalid, keeping its logs', async () => {
    const started = performance.now();
    const result = await pool.run(request('console.log("built");\nlet v = 1;\nfor (let i = 0; i < 5000; i++) v = [v];\nv', 10_000));
    expect(result).toMatchObject({
      ok: false,
      code: 'result-invalid',
      message: `The code's result is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed out of the sandbox may have.`,
      logs: [{ level: 'log', text: 'built' }],
    });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('passes a result exactly at the depth limit', async () => {
    const result = await pool.run(request(`let v = 1;\nfor (let i = 0; i < ${LIMITS.jsonDepth}; i++) v = [v];\nJSON.stringify(v).length`));
    expect(result).toMatchObject({ ok: true, value: 2 * LIMITS.jsonDepth + 1 });
    const value = await pool.run(request(`let v = "[{";\nfor (let i = 0; i < ${LIMITS.jsonDepth - 1}; i++) v = [v];\nv`));
    expect(value.ok).toBe(true);
  });

  it('refuses WASM arguments nested past the limit in the guest, before anything crosses to a thread', async () => {
    const facade =
      'import { callWasm } from "sandbox:wasm-bridge";\nexport function deep() { let v = 1; for (let i = 0; i < 5000; i++) v = [v]; return callWasm("wasm:deep", "f", [v]); }\n';
    const wasmRequest: KernelRunRequest = {
      ...request('import { deep } from "@acme/deep";\ntry { await deep(); return "answered"; } catch (error) { return error instanceof TypeError; }', 10_000),
      entries: { '@acme/deep': 'wasm:deep' },
      modules: {
        'wasm:deep': {
          moduleId: 'wasm:deep',
          kind: 'wasm',
          packName: '@acme/deep',
          packVersion: '1.0.0',
          displayName: '@acme/deep',
          source: facade,
          imports: { 'sandbox:wasm-bridge': 'sandbox:wasm-bridge' },
          digest: 'e'.repeat(64),
        },
      },
    };
    let calls = 0;
    const result = await pool.run(
      wasmRequest,
      withWasmPort({
        call: async () => {
          calls++;
          return { ok: true, value: 1 };
        },
      }),
    );
    expect(result).toMatchObject({ ok: true, value: true });
    expect(calls).toBe(0);
  });

  it('ends the run at once with a tagged failure when the worker posts a message main cannot read', async () => {
    // A worker that misbehaves on the host side (the guest can no longer cause this) posts a host
    // call nested 5,000 deep: main's smaller stack cannot deserialize it ('messageerror').
    const odd = portedSandboxPool({ size: 1, graceMs: 500, workerEntry: new URL('../../../fixtures/kernel/unreadable-message-worker.mjs', import.meta.url) });
    try {
      const started = performance.now();
      const result = await odd.run(request('return "answered";', 10_000), withWasmPort({ call: async () => ({ ok: true, value: 1 }) }));
      expect(result).toMatchObject({
        ok: false,
        code: 'sandbox-crashed',
        message:
          'The sandbox worker sent a message the host could not read (Maximum call stack size exceeded), for example a value nested too deeply; the run was stopped.',
        logs: [{ level: 'log', text: 'calling' }],
      });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(odd.started).toBe(2);
    } finally {
      await odd.close();
    }
  });
});
