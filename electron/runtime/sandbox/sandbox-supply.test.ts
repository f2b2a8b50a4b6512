// The sandbox supply hands every run a sandbox whose engine memory holds nothing of any earlier
// run: checked on the engine's linear memory itself, not only through what a guest can reach
// (run-isolation.test.ts). A run leaves its inputs all over its engine's memory, and after
// `retire` none of it remains. It tests shared/sandbox/supply/sandbox-supply.ts from here, not beside it,
// because it compiles the registered engine asset as the packaged app does (engine-wasm.ts reads
// it with node:fs) and one case runs through the worker pool (worker_threads).
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { ENGINE_BASE_PAGES } from '../../../shared/sandbox/supply/engine.ts';
import { EngineStateNotFound, SandboxAlreadyUsed, SandboxNeedsWasm } from '../../../shared/sandbox/kernel/errors.ts';
import { findRandomState, findHeapEnd, type RandomStateFinder } from '../../../shared/sandbox/supply/memory-snapshot.ts';
import { imagePlan } from '../../../shared/sandbox/supply/module-image.ts';
import { SandboxSupply } from '../../../shared/sandbox/supply/sandbox-supply.ts';
import { isolationSecret } from '../../../shared/testing/isolation-probe.ts';
import { runPrepared } from '../../../shared/sandbox/kernel/kernel.ts';
import { SYSTEM_CLOCK } from '../../../shared/sandbox/kernel/system-clock.ts';
import { compileEngineWasm } from './engine-wasm.ts';
import { occurrences } from '../../testing/memory-occurrences.ts';
import { SandboxPool } from './sandbox-pool.ts';

const powers = { ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false as const, code: 'capability-denied' as const, message: 'none' }) };

describe('SandboxSupply', () => {
  const request = (code: string, inputs: Record<string, unknown> = {}): KernelRunRequest => ({
    code,
    entries: {},
    modules: {},
    inputs,
    grants: NO_GRANTS,
    timeoutMs: 20_000,
  });
  /** One module, for runs that import: `import { v } from "m"` gives 5. */
  const module = {
    moduleId: 'js:m',
    kind: 'js',
    packName: 'm',
    packVersion: '1.0.0',
    displayName: 'm',
    source: 'export const v = 5;',
    imports: {},
    digest: 'd'.repeat(64),
  } as const;

  it("restores a retired sandbox's memory to its image from before any run: nothing of the run remains, byte for byte", async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    await supply.prepare();
    const first = await supply.take(false);
    const pristine = new Uint8Array(first.memory.buffer.slice(0));
    const secret = isolationSecret();
    // Copies of the secret all over the heap, and changes to the context's own objects, without
    // growing the memory past its 16 MB (a grown memory is never restored, see below).
    const plant =
      'const keep = []; for (let i = 0; i < 500; i++) keep.push(apiKey + " " + i, [apiKey].join(""));' +
      'globalThis.leak = apiKey; Object.prototype.polluted = apiKey; Math.random = () => 4; JSON.stringify = () => apiKey; return keep.length;';
    const outcome = await runPrepared(first.sandbox, request(plant, { apiKey: secret }), powers);
    expect(outcome.result).toMatchObject({ ok: true, value: 1000 });
    expect(first.memory.buffer.byteLength).toBe(ENGINE_BASE_PAGES * 64 * 1024);
    expect(occurrences(first.memory, secret)).toBeGreaterThan(500);
    // A sandbox serves one run until it is restored: a second use is refused, never run.
    await expect(runPrepared(first.sandbox, request('return 1;'), powers)).rejects.toThrow(SandboxAlreadyUsed);

    supply.retire(first);
    expect(occurrences(first.memory, secret)).toBe(0);
    // Byte for byte the image, but for the Math.random state the next take reseeds (one 8-byte word).
    const now = new Uint8Array(first.memory.buffer);
    const differing: number[] = [];
    for (let i = 0; i < now.length; i++) if (now[i] !== pristine[i]) differing.push(i);
    expect(differing.length).toBeLessThanOrEqual(8);
    if (differing.length > 0) expect(Math.floor(differing.at(-1)! / 8)).toBe(Math.floor(differing[0]! / 8));

    const second = await supply.take(false);
    expect(second.memory === first.memory).toBe(true);
    const after = await runPrepared(
      second.sandbox,
      request('return [typeof leak, "polluted" in {}, typeof apiKey, Math.random() !== 4 && typeof Math.random(), JSON.stringify({ a: 1 })];'),
      powers,
    );
    expect(after.result).toMatchObject({ ok: true, value: ['undefined', false, 'undefined', 'number', '{"a":1}'] });
    supply.retire(second);
  }, 60_000);

  it('reseeds Math.random for every run: two runs on the same restored sandbox draw different numbers', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const draws: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const taken = await supply.take(false);
      const outcome = await runPrepared(taken.sandbox, request('return [Math.random(), Math.random()];'), powers);
      expect(outcome.result.ok).toBe(true);
      draws.push(JSON.stringify(outcome.result.ok ? outcome.result.value : undefined));
      supply.retire(taken);
    }
    expect(new Set(draws).size).toBe(3);
  }, 60_000);

  it('never restores a sandbox whose memory grew past its initial size: the next run gets a new sandbox on a 16 MB memory', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const first = await supply.take(false);
    const outcome = await runPrepared(first.sandbox, request('const a = new Uint8Array(40 << 20); a.fill(7); return a.length;'), powers);
    expect(outcome.result).toMatchObject({ ok: true, value: 40 << 20 });
    expect(first.memory.buffer.byteLength).toBeGreaterThan(ENGINE_BASE_PAGES * 64 * 1024);
    supply.retire(first);
    const second = await supply.take(false);
    expect(second.sandbox === first.sandbox).toBe(false);
    expect(second.memory === first.memory).toBe(false);
    expect(second.memory.buffer.byteLength).toBe(ENGINE_BASE_PAGES * 64 * 1024);
    supply.retire(second);
  }, 60_000);

  it('a run that ends in an error (the guest stack overflowing) leaves a sandbox the next run can use', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const first = await supply.take(false);
    const deep = await runPrepared(first.sandbox, request('const f = () => f(); return f();'), powers);
    expect(deep.result.ok).toBe(false);
    supply.retire(first);
    const second = await supply.take(false);
    const ok = await runPrepared(second.sandbox, request('return 2;'), powers);
    expect(ok.result).toMatchObject({ ok: true, value: 2 });
    supply.retire(second);
  }, 60_000);

  it('serves hundreds of runs of every ending from one restored sandbox: each answers as on a new one, and the memory returns to its image each time', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    const first = await supply.take(false);
    const image = new Uint8Array(first.memory.buffer.slice(0));
    supply.retire(first);
    const host = {
      ...powers,
      hostCall: async (_kind: string, name: string) => ({ ok: true as const, value: `answer to ${name}` }),
    };
    const cases: [string, (result: unknown) => void][] = [
      ['return [1, "two", { three: 3 }];', (r) => expect(r).toMatchObject({ ok: true, value: [1, 'two', { three: 3 }] })],
      ['throw new TypeError("boom");', (r) => expect(r).toMatchObject({ ok: false, message: expect.stringContaining('boom') })],
      [
        'console.log("hello"); return await Promise.resolve(7);',
        (r) => expect(r).toMatchObject({ ok: true, value: 7, logs: [{ level: 'log', text: 'hello' }] }),
      ],
      ['return await getSecret("X");', (r) => expect(r).toMatchObject({ ok: false, code: 'capability-denied' })],
      ['return JSON.parse("{");', (r) => expect(r).toMatchObject({ ok: false })],
      [
        'const a = []; for (let i = 0; i < 20000; i++) a.push({ i, s: "x".repeat(i % 50) }); return a.length;',
        (r) => expect(r).toMatchObject({ ok: true, value: 20000 }),
      ],
      ['globalThis.x = (globalThis.x ?? 0) + 1; return x;', (r) => expect(r).toMatchObject({ ok: true, value: 1 })],
      // Every other run leaves a global behind; none is ever seen.
      ['return typeof leftover;', (r) => expect(r).toMatchObject({ ok: true, value: 'undefined' })],
    ];
    for (let i = 0; i < 210; i++) {
      const [code, check] = cases[i % cases.length]!;
      const taken = await supply.take(false);
      expect(taken.sandbox === first.sandbox).toBe(true);
      const outcome = await runPrepared(taken.sandbox, request(i % 2 && !code.includes('leftover') ? `globalThis.leftover = 1; ${code}` : code), host);
      check(outcome.result);
      supply.retire(taken);
      if (i % 70 === 69) {
        const now = new Uint8Array(first.memory.buffer);
        let differing = 0;
        for (let at = 0; at < now.length; at++) if (now[at] !== image[at]) differing++;
        expect(differing).toBeLessThanOrEqual(8);
      }
    }
  }, 120_000);

  it('interrupts a loop at its deadline on every run of a restored sandbox, not only the first (the worker is never terminated for it)', async () => {
    // Through a worker, so a missing interrupt shows as the watchdog terminating it (a new worker
    // started) rather than as a test thread spinning forever.
    const pool = new SandboxPool({ size: 1, graceMs: 5_000 });
    try {
      for (let i = 0; i < 3; i++) expect(await pool.run({ ...request('while (true) {}'), timeoutMs: 100 })).toMatchObject({ ok: false, code: 'timeout' });
      expect(pool.started).toBe(1);
    } finally {
      await pool.close();
    }
    const supply = new SandboxSupply(compileEngineWasm);
    // And the module loader is installed afresh on every run: a run with an import resolves it.
    for (let i = 0; i < 2; i++) {
      const taken = await supply.take(false);
      const outcome = await runPrepared(
        taken.sandbox,
        { ...request('import { v } from "m";\nreturn v;'), entries: { m: 'js:m' }, modules: { 'js:m': module } },
        powers,
      );
      expect(outcome.result).toMatchObject({ ok: true, value: 5 });
      supply.retire(taken);
    }
  }, 60_000);

  it("finds the allocator's heap end, and a run writes nothing above it (what restoring zeroes stops there)", async () => {
    const heapEndAt = await findHeapEnd(await compileEngineWasm());
    expect(heapEndAt).toBeGreaterThan(0);
    const supply = new SandboxSupply(compileEngineWasm);
    const taken = await supply.take(false);
    const outcome = await runPrepared(
      taken.sandbox,
      request(
        'const keep = []; for (let i = 0; i < 3000; i++) keep.push("x".repeat(i)); keep.length = 10; const f = (n) => (n ? f(n - 1) + 1 : 0); return f(2000);',
      ),
      powers,
    );
    expect(outcome.result).toMatchObject({ ok: true, value: 2000 });
    const end = new Uint32Array(taken.memory.buffer, heapEndAt!, 1)[0]!;
    const bytes = new Uint8Array(taken.memory.buffer);
    expect(end).toBeLessThan(bytes.length);
    expect(bytes.subarray(end).some((byte) => byte !== 0)).toBe(false);
    expect(bytes.subarray(end - 4096, end).some((byte) => byte !== 0)).toBe(true);
    supply.retire(taken);
  }, 60_000);

  it('prepares sandboxes by kind: a WASM run gets a prelude with the WASM bridge, a plain one without', async () => {
    const supply = new SandboxSupply(compileEngineWasm);
    await supply.prepare(true);
    const wasm = await supply.take(true);
    const plain = await supply.take(false);
    expect([wasm.sandbox.withWasm, plain.sandbox.withWasm]).toEqual([true, false]);
    const wasmRun = { ...request('return 1;'), modules: { 'wasm:x': { moduleId: 'wasm:x', kind: 'wasm' } } } as unknown as KernelRunRequest;
    await expect(runPrepared(plain.sandbox, wasmRun, powers)).rejects.toThrow(SandboxNeedsWasm);
    supply.retire(wasm);
    supply.retire(plain);
  }, 60_000);

  it("fails closed when the engine's Math.random state cannot be found: no sandbox is handed out, and the reason is the error's", async () => {
    let searched = 0;
    const supply = new SandboxSupply(compileEngineWasm, {
      findRandomState: () => {
        searched++;
        return undefined;
      },
    });
    const refusal = "the engine's Math.random state could not be found; sandboxes cannot be restored";
    // What a worker awaits before it reports ready: it never does, and the pool answers its runs sandbox-crashed with this reason.
    await expect(supply.prepare()).rejects.toThrow(EngineStateNotFound);
    await expect(supply.prepare()).rejects.toThrow(refusal);
    await expect(supply.take(false)).rejects.toThrow(refusal);
    expect(searched).toBe(3);
  }, 60_000);

  it("refuses only a module set's image when its sandbox's state cannot be found: the set's runs take the plain sandbox", async () => {
    let calls = 0;
    // The plain sandbox's search succeeds; the set's sandbox's fails.
    const finder: RandomStateFinder = (memory, step) => (calls++ === 0 ? findRandomState(memory, step) : undefined);
    const supply = new SandboxSupply(compileEngineWasm, { findRandomState: finder });
    await supply.prepare(false);
    const run = { ...request('import { v } from "m";\nreturn v;'), entries: { m: 'js:m' }, modules: { 'js:m': module } };
    const taken = await supply.take(false, run);
    expect(taken.sandbox.image).toBeUndefined();
    expect(supply.images).toEqual({ count: 0, bytes: 0 });
    expect(supply.refusal(imagePlan(run, ['m'], false)!.key)).toBe("the engine's state could not be found");
    expect((await runPrepared(taken.sandbox, run, powers)).result).toMatchObject({ ok: true, value: 5 });
    supply.retire(taken);
    expect(calls).toBe(2);
  }, 60_000);

  const BASE = ENGINE_BASE_PAGES * 64 * 1024;
  const GROW = 'const a = new Uint8Array(40 << 20); a.fill(7); return a.length;';

  it('keeps no grown engine memory past its run (plain, WASM and module-set sandboxes), and says how far each memory it let go had grown', async () => {
    const grown: number[] = [];
    const supply = new SandboxSupply(compileEngineWasm, { onGrownMemoryFreed: (bytes) => grown.push(bytes) });
    const withModule = { ...request(`import { v } from "m";\n${GROW}`), entries: { m: 'js:m' }, modules: { 'js:m': module } };
    for (const [withWasm, run] of [
      [false, request(GROW)],
      [true, request(GROW)],
      [false, withModule],
    ] as const) {
      const taken = await supply.take(withWasm, run);
      expect(taken.sandbox.image !== undefined).toBe(run === withModule);
      expect((await runPrepared(taken.sandbox, run, powers)).result).toMatchObject({ ok: true, value: 40 << 20 });
      expect(taken.memory.buffer.byteLength).toBeGreaterThan(BASE);
      supply.retire(taken);
      // Every memory the supply keeps (its sandboxes, a blank one, a spare) is at the initial size.
      const held = await supply.heldMemoryBytes();
      expect(held.length).toBeGreaterThan(0);
      expect(held.filter((bytes) => bytes !== BASE)).toEqual([]);
    }
    expect(grown).toHaveLength(3);
    for (const bytes of grown) expect(bytes).toBeGreaterThanOrEqual((40 << 20) - BASE);
    // A run that does not grow its memory lets none go.
    const small = await supply.take(false);
    expect((await runPrepared(small.sandbox, request('return 1;'), powers)).result).toMatchObject({ ok: true, value: 1 });
    supply.retire(small);
    expect(grown).toHaveLength(3);
  }, 60_000);

  it('stays within its image budget through a burst of module sets, some of whose runs grow their memory', async () => {
    const budget = 40 * 1024 * 1024;
    const supply = new SandboxSupply(compileEngineWasm, { imageBudgetBytes: budget });
    const set = (n: number, grow: boolean) => ({
      ...request(`import { v } from "m${n}";\n${grow ? GROW : 'return v;'}`),
      entries: { [`m${n}`]: `js:m${n}` },
      modules: {
        [`js:m${n}`]: {
          ...module,
          moduleId: `js:m${n}`,
          packName: `m${n}`,
          displayName: `m${n}`,
          source: `export const v = ${n};`,
          digest: String(n).padEnd(64, '0'),
        },
      },
    });
    for (let round = 0; round < 2; round++) {
      for (let n = 0; n < 6; n++) {
        const run = set(n, n % 3 === round);
        const taken = await supply.take(false, run);
        expect((await runPrepared(taken.sandbox, run, powers)).result).toMatchObject({ ok: true });
        supply.retire(taken);
        expect(supply.images.bytes).toBeLessThanOrEqual(budget);
      }
    }
    const held = await supply.heldMemoryBytes();
    expect(held.filter((bytes) => bytes !== BASE)).toEqual([]);
    // The plain sandbox, at most two sets' of about 18 MB each, a blank one and a spare.
    expect(supply.images.count).toBeLessThanOrEqual(2);
    expect(held.length).toBeLessThanOrEqual(1 + supply.images.count + 2);
  }, 120_000);
});
