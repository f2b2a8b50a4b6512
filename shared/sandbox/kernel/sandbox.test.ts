// A sandbox's lifecycle is one state, and each misuse throws its named error (errors.ts) before it
// touches the engine, leaving the state as it was. The runs here go through the kernel on one test
// engine; restoring the memory between runs is the supply's part (sandbox-supply.test.ts).
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type GuestModule, type KernelRunRequest } from '../../protocol/run.ts';
import { newBoundedQuickJsNg } from '../../testing/quickjs-engine.ts';
import { SandboxAlreadyUsed, SandboxImageMismatch, SandboxMisuse, SandboxNeedsWasm, SandboxNotRewindable, SandboxUseAfterDispose } from './errors.ts';
import { evaluateImageInto, runPrepared, type RunPowers } from './kernel.ts';
import { imagePlan } from '../supply/module-image.ts';
import { prepareSandbox } from './sandbox.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const powers: RunPowers = { ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false, code: 'capability-denied', message: 'none' }) };
const engine = newBoundedQuickJsNg().then((bounded) => bounded.engine);

const request = (code: string, modules: Record<string, GuestModule> = {}): KernelRunRequest => ({
  code,
  entries: Object.fromEntries(Object.values(modules).map((m) => [m.packName, m.moduleId])),
  modules,
  inputs: {},
  grants: NO_GRANTS,
  timeoutMs: 5_000,
});

const module = (name: string, source: string): GuestModule => ({
  moduleId: `js:${name}`,
  kind: 'js',
  packName: name,
  packVersion: '1.0.0',
  displayName: name,
  source,
  imports: {},
  digest: name.padEnd(64, '0'),
});

describe('Sandbox lifecycle', () => {
  it('goes fresh -> running -> ended -> fresh, and serves again once rewound', async () => {
    const sandbox = prepareSandbox(await engine, false);
    expect(sandbox.state).toBe('fresh');
    expect((await runPrepared(sandbox, request('return 1;'), powers)).result).toMatchObject({ ok: true, value: 1 });
    expect(sandbox.state).toBe('running');
    expect(sandbox.endRun()).toBe(true);
    expect(sandbox.state).toBe('ended');
    sandbox.rewind();
    expect(sandbox.state).toBe('fresh');
    expect((await runPrepared(sandbox, request('return 2;'), powers)).result).toMatchObject({ ok: true, value: 2 });
    expect(sandbox.dispose()).toBe(true);
    expect(sandbox.state).toBe('disposed');
    // Disposing twice is harmless.
    expect(sandbox.dispose()).toBe(true);
  });

  it('refuses a second run until the first has ended and the sandbox is rewound (SandboxAlreadyUsed, SandboxNotRewindable)', async () => {
    const sandbox = prepareSandbox(await engine, false);
    await runPrepared(sandbox, request('return 1;'), powers);
    await expect(runPrepared(sandbox, request('return 2;'), powers)).rejects.toThrow(SandboxAlreadyUsed);
    await expect(runPrepared(sandbox, request('return 2;'), powers)).rejects.toThrow(
      'a sandbox serves one run only, until it is restored and rewound (this one is running)',
    );
    expect(() => sandbox.rewind()).toThrow(SandboxNotRewindable);
    expect(() => sandbox.rewind()).toThrow('only a sandbox whose run ended cleanly can be rewound (this one is running)');
    expect(() => sandbox.stepRandom()).toThrow(SandboxAlreadyUsed);
    expect(sandbox.state).toBe('running');
    sandbox.endRun();
    await expect(runPrepared(sandbox, request('return 2;'), powers)).rejects.toThrow('(this one is ended)');
    sandbox.dispose();
  });

  it('refuses every use after dispose (SandboxUseAfterDispose)', async () => {
    const sandbox = prepareSandbox(await engine, false);
    sandbox.dispose();
    await expect(runPrepared(sandbox, request('return 1;'), powers)).rejects.toThrow(SandboxUseAfterDispose);
    expect(() => sandbox.rewind()).toThrow(SandboxUseAfterDispose);
    expect(() => sandbox.stepRandom()).toThrow(SandboxUseAfterDispose);
    expect(() => sandbox.beginImage()).toThrow('the sandbox was disposed');
    expect(sandbox.endRun()).toBe(false);
    expect(sandbox.state).toBe('disposed');
  });

  it('refuses a WASM run on a sandbox made without the WASM bridge (SandboxNeedsWasm), and stays fresh', async () => {
    const sandbox = prepareSandbox(await engine, false);
    const wasmRun = { ...request('return 1;'), modules: { 'wasm:x': { moduleId: 'wasm:x', kind: 'wasm' } } } as unknown as KernelRunRequest;
    await expect(runPrepared(sandbox, wasmRun, powers)).rejects.toThrow(SandboxNeedsWasm);
    expect(sandbox.state).toBe('fresh');
    expect((await runPrepared(sandbox, request('return 3;'), powers)).result).toMatchObject({ ok: true, value: 3 });
    sandbox.dispose();
  });

  it("holds a module set once compiled, serves only that set's runs (SandboxImageMismatch), and rewinds to compiled", async () => {
    const sandbox = prepareSandbox(await engine, false);
    const own = request('import { v } from "m";\nreturn v;', { 'js:m': module('m', 'export const v = 5;') });
    const built = evaluateImageInto(sandbox, imagePlan(own, ['m'], false)!, () => performance.now(), 5_000);
    expect(built.ok).toBe(true);
    expect(sandbox.state).toBe('compiled');
    expect(sandbox.image).toBeDefined();
    // Another set, or the same id with another source: refused before anything runs.
    const other = request('import { v } from "m";\nreturn v;', { 'js:m': module('m', 'export const v = 6;') });
    await expect(runPrepared(sandbox, other, powers)).rejects.toThrow(SandboxImageMismatch);
    expect(sandbox.state).toBe('compiled');
    // A second image is refused too: only a sandbox no run has used takes one.
    expect(() => evaluateImageInto(sandbox, imagePlan(own, ['m'], false)!, () => performance.now(), 5_000)).toThrow(SandboxAlreadyUsed);
    expect((await runPrepared(sandbox, own, powers)).result).toMatchObject({ ok: true, value: 5 });
    expect(sandbox.endRun()).toBe(true);
    sandbox.rewind();
    expect(sandbox.state).toBe('compiled');
    sandbox.dispose();
  });

  it('refuses an image on a sandbox a run has used', async () => {
    const sandbox = prepareSandbox(await engine, false);
    const own = request('import { v } from "m";\nreturn v;', { 'js:m': module('m', 'export const v = 5;') });
    await runPrepared(sandbox, request('return 1;'), powers);
    sandbox.endRun();
    expect(() => evaluateImageInto(sandbox, imagePlan(own, ['m'], false)!, () => performance.now(), 5_000)).toThrow(
      'an image is evaluated only into a sandbox no run has used (this one is ended)',
    );
    sandbox.dispose();
  });

  it('ends a run that was handed out but never started, and every misuse error is a SandboxMisuse', async () => {
    const sandbox = prepareSandbox(await engine, false);
    expect(sandbox.endRun()).toBe(true);
    expect(sandbox.state).toBe('ended');
    sandbox.rewind();
    expect(sandbox.state).toBe('fresh');
    sandbox.dispose();
    for (const named of [SandboxUseAfterDispose, SandboxAlreadyUsed, SandboxNotRewindable, SandboxImageMismatch, SandboxNeedsWasm]) {
      const error = new named('x');
      expect(error).toBeInstanceOf(SandboxMisuse);
      expect(error.name).toBe(named.name);
    }
  });
});
