// Long runs that wait on host calls, beside bursts of short runs (issue 26 items 1 and 2), with real
// worker threads, real guests, a real catalog over an install root and the app's WASM route (a
// plan answered by the worker's own lanes). A short run sent to a worker to run nested must run
// only at the long run's interrupt poll — never beside it while it awaits a host call — and a long
// run's pending calls belong to it alone, so nothing a short run does (nested or not) loses them.
// And a short run never waits on runs that neither poll nor end: with nowhere to nest, it gets a
// worker. Order and completion are asserted, never durations.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxModuleResolutionOk } from '../../../shared/protocol/catalog.ts';
import { NO_GRANTS, type HostCallResult, type KernelRunRequest, type RunResult } from '../../../shared/protocol/run.ts';
import { buildWasm, op } from '../../../shared/testing/wasm-builder.ts';
import { openCatalog, type DiscoveryCatalog } from '../../catalog/catalog.ts';
import { startRun } from '../../testing/started-run.ts';
import { WasmModuleCache } from '../wasm/module-cache.ts';
import { buildWasmPlan } from '../wasm/wasm-plan.ts';
import { toKernelRequest } from '../../../shared/protocol/kernel-request.ts';
import { ELASTIC_MAX_WORKERS, SandboxPool, type SandboxHostPorts } from './sandbox-pool.ts';

/** count(n): counts n down to zero in WASM and returns n (a call that takes a while, then answers). */
const COUNT = buildWasm({
  funcs: [
    {
      type: { params: ['i32'], results: ['i32'] },
      locals: ['i32'],
      body: [
        op.local_get,
        0,
        op.local_set,
        1,
        op.loop,
        op.blocktype_empty,
        op.local_get,
        1,
        op.i32_const,
        1,
        op.i32_sub,
        op.local_tee,
        1,
        op.br_if,
        0,
        op.end,
        op.local_get,
        0,
      ],
    },
  ],
  exports: [{ name: 'count', kind: 'func', index: 0 }],
});
/** spin(): never returns (the call ends at its time budget). */
const SPIN = buildWasm({
  funcs: [{ type: { params: [], results: ['i32'] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end, op.i32_const, 0] }],
  exports: [{ name: 'spin', kind: 'func', index: 0 }],
});

let root: string;
let catalog: DiscoveryCatalog;
const compiled = new WasmModuleCache();

function writePack(name: string, file: string, bytes: Uint8Array, exportName: string, budgets: Record<string, number> = {}): void {
  const dir = join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), bytes);
  const module = { name: '.', kind: 'wasm', file, memoryPagesMax: 1, exports: [exportName], budgets };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', nodetool: { apiVersion: 1, sandboxModules: [module] } }));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'pool-host-calls-'));
  writePack('@t/count', 'count.wasm', COUNT, 'count');
  writePack('@t/spin', 'spin.wasm', SPIN, 'spin', { callTimeoutMs: 4000 });
  const opened = await openCatalog({ root });
  if (!opened.ok) throw new Error(opened.message);
  catalog = opened.value;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function resolve(...specifiers: string[]): SandboxModuleResolutionOk {
  const resolution = catalog.resolveForExecution(specifiers.map((specifier) => ({ specifier })));
  if (!resolution.ok) throw new Error(resolution.message);
  return resolution;
}

const plain = (code: string, timeoutMs = 20_000): KernelRunRequest => ({ code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs });
const outcome = (result: RunResult): unknown => (result.ok ? result.value : `${result.code}: ${result.message}`);

/** Answers after `ms`, as a slow host would (a fetch to a granted host, a workspace on a slow disk). */
const later = (ms: number, result: HostCallResult): Promise<HostCallResult> => new Promise((done) => setTimeout(() => done(result), ms));

const bytes = (text: string) => new TextEncoder().encode(text);

/** The host side of the long runs: every capability answers after 150 ms. */
const slowHost: SandboxHostPorts['capability'] = (name, args) => {
  if (name === 'getSecret') return later(150, { ok: true, value: `secret-of-${String(args[0])}` });
  if (name === 'workspace.read') return later(150, { ok: true, value: bytes(`contents of ${String(args[0])}`) });
  if (name === 'fetch') return later(150, { ok: true, value: { status: 200, statusText: 'OK', url: String(args[0]), headers: {}, body: bytes('fetched') } });
  return Promise.resolve({ ok: false, code: 'capability-denied', message: `${name} is not available.` });
};

/** Guest code that computes (interrupt polls) between awaited host calls, three rounds. */
const SPINS = 'let i = 0; while (i < 200000) i++;';
const LONG_CAPABILITY_RUNS: readonly { code: string; grants: KernelRunRequest['grants']; value: unknown }[] = [
  {
    code: `const out = [];\nfor (let r = 0; r < 3; r++) { ${SPINS} out.push(await getSecret("T" + r)); }\nreturn out;`,
    grants: { ...NO_GRANTS, secrets: ['T0', 'T1', 'T2'] },
    value: ['secret-of-T0', 'secret-of-T1', 'secret-of-T2'],
  },
  {
    code: `const out = [];\nfor (let r = 0; r < 3; r++) { ${SPINS} out.push(await workspace.readText("f" + r + ".txt")); }\nreturn out;`,
    grants: { ...NO_GRANTS, workspace: true },
    value: ['contents of f0.txt', 'contents of f1.txt', 'contents of f2.txt'],
  },
  {
    code: `const out = [];\nfor (let r = 0; r < 3; r++) { ${SPINS} const res = await fetch("https://example.com/" + r); out.push(res.status + " " + (await res.text())); }\nreturn out;`,
    grants: { ...NO_GRANTS, fetch: true },
    value: ['200 fetched', '200 fetched', '200 fetched'],
  },
];

describe('SandboxPool: long runs awaiting host calls beside bursts of short runs', () => {
  const pool = new SandboxPool({ size: 2, maxWorkers: ELASTIC_MAX_WORKERS });
  afterAll(() => pool.close());

  it('answers every long run with its real answers (capabilities and WASM) while short runs keep coming', async () => {
    await Promise.all([pool.run(plain('0')), pool.run(plain('0'))]);
    const counted = resolve('@t/count');
    const wasmRun = async () => {
      const input = {
        code: `import { count } from "@t/count";\nconst out = [];\nfor (let r = 0; r < 3; r++) { ${SPINS} out.push(await count(20000000 + r)); }\nreturn out;`,
        resolution: counted,
      };
      return pool.run(toKernelRequest(input), { wasm: { plan: await buildWasmPlan(counted, compiled) } });
    };
    const long = LONG_CAPABILITY_RUNS.map((run) => startRun(pool, { ...plain(run.code), grants: run.grants }, { capability: slowHost }));
    const wasm = [wasmRun()];
    let bursts = 0;
    const allLong = Promise.all([...long.map((run) => run.result), ...wasm]);
    let finished = false;
    void allLong.then(() => (finished = true));
    // Bursts of short runs while the long runs go (short work comes first: a long run that keeps
    // polling is held meanwhile, up to its hold budget): some are sent to run nested while a long
    // run computes, some reach a worker just as its run starts waiting on the host.
    while (!finished && bursts < 10) {
      const shorts = await Promise.all(Array.from({ length: 11 }, () => pool.run(plain('return 6 * 7;'))));
      expect(shorts.map(outcome)).toEqual(Array.from({ length: 11 }, () => 42));
      bursts++;
    }
    const answers = await allLong;
    expect(answers.map(outcome)).toEqual([...LONG_CAPABILITY_RUNS.map((run) => run.value), [20000000, 20000001, 20000002]]);
    expect(bursts).toBeGreaterThan(0);
  });
});

describe('SandboxPool: a short run with nowhere to nest', () => {
  // A pool of its own: no worker an earlier burst started is still idle.
  const pool = new SandboxPool({ size: 2, maxWorkers: ELASTIC_MAX_WORKERS });
  afterAll(() => pool.close());

  it('gets a worker when every worker waits on a WASM export that never returns', async () => {
    await Promise.all([pool.run(plain('0')), pool.run(plain('0'))]);
    const spinning = resolve('@t/spin');
    const plan = await buildWasmPlan(spinning, compiled);
    const spinRun = () =>
      startRun(pool, toKernelRequest({ code: 'import { spin } from "@t/spin";\nreturn await spin();', resolution: spinning }), { wasm: { plan } });
    const spins = [spinRun(), spinRun()];
    // Both workers take a spinning run (no short run is queued before them), then a short run comes.
    const short = startRun(pool, plain('return 6 * 7;'));
    expect(outcome(await short.result)).toBe(42);
    expect(spins.filter((run) => run.answered)).toEqual([]);
    const ended = await Promise.all(spins.map((run) => run.result));
    expect(ended.map((result) => (result.ok ? 'ok' : result.code))).toEqual(['wasm-timeout', 'wasm-timeout']);
  });

  it('gets a worker when every worker waits on a slow host call', async () => {
    const slow = () =>
      startRun(
        pool,
        { ...plain('const res = await fetch("https://example.com/");\nreturn res.status;'), grants: { ...NO_GRANTS, fetch: true } },
        {
          capability: () => later(3000, { ok: true, value: { status: 200, statusText: 'OK', url: 'https://example.com/', headers: {}, body: bytes('') } }),
        },
      );
    const waiting = [slow(), slow()];
    const shorts = await Promise.all(Array.from({ length: 11 }, () => pool.run(plain('return 6 * 7;'))));
    expect(shorts.map(outcome)).toEqual(Array.from({ length: 11 }, () => 42));
    expect(waiting.filter((run) => run.answered)).toEqual([]);
    expect((await Promise.all(waiting.map((run) => run.result))).map(outcome)).toEqual([200, 200]);
  });
});

describe('SandboxPool: module sources a worker no longer keeps', () => {
  const pool = new SandboxPool({ size: 1 });
  afterAll(() => pool.close());

  it('sends a run again in full when its worker has let a source go, and answers with the right module', async () => {
    // 40 distinct ~1 MB modules carried by runs on the one worker: more than it keeps (32 MB), so
    // the first ones are let go; a run that relies on the first one again is sent again in full.
    const big = (n: number) =>
      ({
        moduleId: `m_big${n}`,
        kind: 'js',
        packName: `@t/big${n}`,
        packVersion: '1.0.0',
        displayName: `@t/big${n}`,
        source: `export const n = ${n};\nexport const pad = "${'x'.repeat(1_000_000)}";\n`,
        imports: {},
        digest: `big${n}`.padEnd(64, '0'),
      }) as const;
    const modules = Array.from({ length: 40 }, (_, n) => big(n));
    const reads = modules.map((m) => ({
      ...plain(`import { n } from "@t/big${m.moduleId.slice(5)}";\nreturn n;`),
      entries: { [`@t/big${m.moduleId.slice(5)}`]: m.moduleId },
      modules: { [m.moduleId]: m },
    }));
    expect(outcome(await pool.run(reads[0]!))).toBe(0);
    for (const read of reads.slice(1)) expect(outcome(await pool.run({ ...read, code: 'return 1;' }))).toBe(1);
    // The first module's source left out on the way (the host sent it before), let go by the worker.
    expect(outcome(await pool.run(reads[0]!))).toBe(0);
    expect(outcome(await pool.run(reads[39]!))).toBe(39);
    expect(pool.started).toBe(1);
  }, 120_000);
});

describe('SandboxPool: runs that await WASM, nested in a long run (issue 30)', () => {
  // One worker, and no other may start: whatever answers while its run spins ran nested in it.
  const pool = new SandboxPool({ size: 1, maxWorkers: 1 });
  afterAll(() => pool.close());

  it('answers runs awaiting a WASM export inside the only worker’s spinning run, with the answers and receipts they get alone', async () => {
    const counted = resolve('@t/count');
    const plan = await buildWasmPlan(counted, compiled);
    const request = toKernelRequest({ code: 'import { count } from "@t/count";\nreturn [await count(1000), await count(7)];', resolution: counted });
    // Alone first: the worker starts its lanes and keeps the set's image.
    const alone = await pool.run(request, { wasm: { plan } });
    expect(alone).toMatchObject({ ok: true, value: [1000, 7] });
    const started = pool.started;
    const loop = startRun(pool, plain('while (true) {}', 4000));
    // Once a short run answers, the loop polls and takes nested runs.
    expect(await pool.run(plain('"polling"'))).toMatchObject({ ok: true, value: 'polling' });
    const runs = await Promise.all(Array.from({ length: 6 }, () => pool.run(request, { wasm: { plan } })));
    expect(loop.answered).toBe(false);
    for (const run of runs) {
      expect(run).toMatchObject({ ok: true, value: [1000, 7] });
      expect(run.receipt.calls).toEqual(alone.receipt.calls);
    }
    expect(pool.started).toBe(started);
    expect(outcome(await loop.result)).toMatch(/^timeout/);
  });
});
