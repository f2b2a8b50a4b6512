// The dispatcher parses code.run's answers against the contract as it does every answer; the
// code runner must already give exactly that shape, or a run would be answered `internal` or lose
// parts. This checks it on real answers of every kind the app gives — a value, logs and a receipt
// with modules, WASM calls and denials, a guest error, a timeout, a cancelled run (built by the
// kernel host, not the worker), a failed call — by running each through the contract's own answer
// schema: the parse changes nothing (no key dropped, nothing refused).

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseSchemaOf } from '../../shared/contract/methods.ts';
import { createAppServices, type AppServices } from './app-services.ts';
import { fixtureDataDir, REPO_ROOT, type TempDir } from '../testing/test-support.ts';

let data: TempDir;
let services: AppServices;

beforeAll(async () => {
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
});

afterAll(async () => {
  await services?.dispose();
  await data?.remove();
});

const run = (request: Record<string, unknown>) => services.dispatcher.handle('code.run', { packages: [], ...request }, { face: 'http' });

/** The answer as the contract's schema would pass it on: exactly the answer. */
function expectContractShaped(answer: unknown): void {
  expect(responseSchemaOf('code.run').parse(answer)).toStrictEqual(answer);
}

describe('code.run answers are already what the contract answers with', () => {
  it('a value with logs, a pack import (modules, resolved) and a WASM call', async () => {
    const answer = await run({
      code: 'import { add } from "@acme/geo/simplify-wasm"; import { haversine } from "@acme/geo"; console.log("a", 1); console.warn("b"); return { sum: await add(1, 2), d: haversine({ lat: 0, lon: 0 }, { lat: 1, lon: 1 }) };',
      packages: [{ specifier: '@acme/geo/simplify-wasm' }, { specifier: '@acme/geo' }],
    });
    expect(answer).toMatchObject({ ok: true, value: { result: { ok: true, logs: [{ level: 'log' }, { level: 'warn' }] } } });
    const value = (answer as { value: { result: { receipt: { modules: unknown[]; calls: unknown[] } }; resolved: unknown[] } }).value;
    expect(value.result.receipt.modules.length).toBeGreaterThan(0);
    expect(value.result.receipt.calls.length).toBeGreaterThan(0);
    expect(value.resolved).toHaveLength(2);
    expectContractShaped(answer);
  });

  it('a guest error, a denied import and a denied capability', async () => {
    const thrown = await run({ code: 'console.log("x"); throw new Error("boom");' });
    expect(thrown).toMatchObject({ ok: true, value: { result: { ok: false } } });
    expectContractShaped(thrown);
    const denied = await run({ code: 'import "@acme/geo"; return 1;' });
    expect(denied).toMatchObject({ ok: true, value: { result: { ok: false, receipt: { denied: [{ kind: 'import' }] } } } });
    expectContractShaped(denied);
    const noFetch = await run({ code: 'try { await fetch("https://example.com/"); } catch (e) { return String(e); }' });
    expect(noFetch).toMatchObject({ ok: true, value: { result: { ok: true } } });
    expectContractShaped(noFetch);
  });

  it('a granted fetch the host refuses (a host off the list) is a denial in the receipt, not only a failed call', async () => {
    const answer = await run({
      code: 'try { await fetch("https://evil.test/x"); } catch (e) { return String(e); }',
      fetchHosts: ['example.com'],
    });
    expect(answer).toMatchObject({ ok: true, value: { result: { ok: true } } });
    const receipt = (answer as { value: { result: { receipt: { calls: unknown[]; denied: unknown[] } } } }).value.result.receipt;
    expect(receipt.calls).toEqual([{ kind: 'capability', name: 'fetch', ok: false, code: 'capability-denied' }]);
    expect(receipt.denied).toEqual([
      {
        kind: 'capability',
        request: 'fetch',
        from: "the node's code",
        code: 'capability-denied',
        reason: "fetch: host evil.test is not on this node's fetch allowlist (example.com).",
      },
    ]);
    expectContractShaped(answer);
  });

  it('a run past its deadline, and a cancelled one (the kernel host builds that result itself)', async () => {
    const late = await run({ code: 'console.log("spin"); while (true) {}', timeoutMs: 200 });
    expect(late).toMatchObject({ ok: true, value: { result: { ok: false, code: 'timeout' } } });
    expectContractShaped(late);
    const going = run({ code: 'console.log("before"); while (true) {}', runId: 'answers-cancel' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await services.dispatcher.handle('code.cancel', { runId: 'answers-cancel' }, { face: 'http' })).toEqual({ ok: true, value: { cancelled: true } });
    const cancelled = await going;
    expect(cancelled).toMatchObject({ ok: true, value: { result: { ok: false, code: 'cancelled', logs: [{ level: 'log', text: 'before' }] } } });
    expectContractShaped(cancelled);
  });

  it('a call that fails before any run (an unknown declaration)', async () => {
    const answer = await run({ code: 'return 1;', packages: [{ specifier: '@acme/nothing-here' }] });
    expect(answer.ok).toBe(false);
    expectContractShaped(answer);
  });
});
