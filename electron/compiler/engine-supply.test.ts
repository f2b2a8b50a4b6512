// The admission probe's engine supply hands every probe an engine no other probe has touched:
// checked on the engines' linear memory itself. A run leaves its inputs all over its engine's
// memory (what a reused engine would hand the next probe), and the next engine from the supply
// holds none of it. The supply compiles the engine binary once (the registered asset, as the
// packaged app finds it) and makes instances from that module.
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../shared/protocol/run.ts';
import { ENGINE_BASE_PAGES } from '../../shared/sandbox/supply/engine.ts';
import { runKernel } from '../../shared/sandbox/kernel/kernel.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/kernel/system-clock.ts';
import { isolationSecret, PLANT_CODE } from '../../shared/testing/isolation-probe.ts';
import { compileEngineWasm } from '../runtime/sandbox/engine-wasm.ts';
import { occurrences } from '../testing/memory-occurrences.ts';
import { EngineSupply } from './engine-supply.ts';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const powers = { ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false as const, code: 'capability-denied' as const, message: 'none' }) };

describe('EngineSupply', () => {
  it('hands the next run an engine whose memory holds nothing of the previous run', async () => {
    let compiles = 0;
    const supply = new EngineSupply(() => {
      compiles++;
      return compileEngineWasm();
    });
    await supply.prepare();
    const first = await supply.take();
    const secret = isolationSecret();
    const request: KernelRunRequest = { code: PLANT_CODE, entries: {}, modules: {}, inputs: { apiKey: secret }, grants: NO_GRANTS, timeoutMs: 20_000 };
    const outcome = await runKernel(request, { ...powers, engine: first.engine });
    expect(outcome.result).toMatchObject({ ok: true, value: 509 });
    // What a reused engine would have carried into the next run: the secret, many times over.
    expect(occurrences(first.memory, secret)).toBeGreaterThan(1000);

    await supply.prepare();
    const second = await supply.take();
    // Compared as booleans: printing an engine in a failure message takes gigabytes.
    expect(second.engine === first.engine).toBe(false);
    expect(second.memory === first.memory).toBe(false);
    expect(second.memory.buffer.byteLength).toBe(ENGINE_BASE_PAGES * 64 * 1024);
    expect(occurrences(second.memory, secret)).toBe(0);
    const after = await runKernel({ ...request, code: 'return typeof apiKey;', inputs: {} }, { ...powers, engine: second.engine });
    expect(after.result).toMatchObject({ ok: true, value: 'undefined' });
    expect(occurrences(second.memory, secret)).toBe(0);
    expect(compiles).toBe(1);
  }, 60_000);

  it('makes an engine on demand when none was prepared, and never hands one out twice', async () => {
    const supply = new EngineSupply(compileEngineWasm);
    const engines = await Promise.all([supply.take(), supply.take()]);
    await supply.prepare();
    const prepared = await supply.take();
    expect(new Set([...engines, prepared].map((e) => e.engine)).size).toBe(3);
    expect(new Set([...engines, prepared].map((e) => e.memory)).size).toBe(3);
  });

  it('keeps no reference to an engine it handed out: once its run is over, the instance and its memory are collected', async () => {
    const supply = new EngineSupply(compileEngineWasm);
    const refs = await (async () => {
      const { engine, memory } = await supply.take();
      const outcome = await runKernel(
        { code: 'return new Uint8Array(1 << 20).length;', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 5_000 },
        { ...powers, engine },
      );
      expect(outcome.result).toMatchObject({ ok: true, value: 1 << 20 });
      return [new WeakRef(engine), new WeakRef(memory)];
    })();
    await supply.prepare();
    // WeakRefs hold their target until the current job ends: collect between macrotasks.
    for (let i = 0; i < 20 && refs.some((ref) => ref.deref() !== undefined); i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      collectGarbage();
    }
    expect(refs.map((ref) => ref.deref() === undefined)).toEqual([true, true]);
  });

  it('reports a binary that cannot be compiled from prepare() and take(), and keeps no engine', async () => {
    const supply = new EngineSupply(() => WebAssembly.compile(new Uint8Array([0, 1, 2, 3])));
    await expect(supply.prepare()).rejects.toThrow(WebAssembly.CompileError);
    await expect(supply.take()).rejects.toThrow(WebAssembly.CompileError);
    await expect(supply.take()).rejects.toThrow(WebAssembly.CompileError);
  });
});
