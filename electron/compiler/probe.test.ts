import { afterAll, describe, expect, it } from 'vitest';
import { createProbe } from './probe.ts';

const probe = createProbe({ deadlineMs: 2_000 });
afterAll(() => probe.close());

describe('admission probe (real quickjs-ng in a worker)', () => {
  it('imports a module and lists its exports', async () => {
    const result = await probe('export const a = 1; export default function () {}', 'm.js');
    expect(result.ok && result.exports).toEqual(['a', 'default']);
  });

  it('refuses code generation, like a real run', async () => {
    expect(await probe('export const f = (function () {}).constructor("return 1");', 'm.js')).toEqual({
      ok: false,
      code: 'runtime-error',
      message: 'TypeError: Function constructor is not available in the sandbox: code cannot be generated at run time. (in m.js, line 1, column 34)',
    });
    expect(await probe('export const v = globalThis.eval;\nif (v !== undefined) throw new Error("eval present");', 'm.js')).toMatchObject({ ok: true });
  });

  it('caps console output while initializing (the kernel keeps at most 64 KB)', async () => {
    const result = await probe('for (let i = 0; i < 1000; i++) console.log("x".repeat(100));\nexport const done = true;', 'm.js');
    if (!result.ok) throw new Error(result.message);
    // 100 KB were written; what is kept is the 64 KB cap plus the kernel's truncation note.
    expect(result.outputBytes).toBeGreaterThan(60 * 1024);
    expect(result.outputBytes).toBeLessThan(66 * 1024);
  });

  it('refuses every capability call at import time (the probe has no grants)', async () => {
    const result = await probe('export const r = await fetch("https://example.com/");', 'm.js');
    expect(result.ok ? '' : result.message).toMatch(/fetch/);
    expect(result).toMatchObject({ ok: false, code: 'capability-denied' });
  });

  it('fails a module whose top-level await never settles', async () => {
    expect(await probe('await new Promise(() => {});\nexport const x = 1;', 'm.js')).toEqual({
      ok: false,
      code: 'runtime-error',
      message: 'The code is waiting for a promise that can never settle (nothing is pending in the sandbox).',
    });
  });

  it('denies every import: a bundle must be self-contained', async () => {
    const result = await probe('import "node:fs";\nexport const x = 1;', 'm.js');
    expect(result).toMatchObject({ ok: false, code: 'import-denied' });
    expect(result.ok ? '' : result.message).toContain('Import "node:fs" from "m.js" was denied');
  });

  it('stops a memory bomb at the guest memory limit', async () => {
    const result = await probe('const a = []; for (;;) a.push(new Array(1e6).fill(1));\nexport const x = a;', 'm.js');
    expect(result).toEqual({ ok: false, code: 'memory-limit', message: 'The code used more than the 64 MB sandbox memory limit and was stopped.' });
  });

  it('keeps one worker for consecutive probes, each in a fresh engine', async () => {
    const own = createProbe({ deadlineMs: 2_000, concurrency: 1 });
    try {
      expect(await own('globalThis.leaked = 1;\nObject.prototype.polluted = 1;\nexport const a = 1;', 'first.js')).toMatchObject({ ok: true, exports: ['a'] });
      // The second module would throw if anything of the first were still there.
      const second = await own('if ("leaked" in globalThis || ({}).polluted !== undefined) throw new Error("state leaked");\nexport const b = 2;', 'second.js');
      expect(second).toMatchObject({ ok: true, exports: ['b'] });
      await own('export const c = 3;', 'third.js');
      expect(own.workersStarted).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('a warmed worker serves the next probes, each still in a fresh engine', async () => {
    const own = createProbe({ deadlineMs: 2_000, concurrency: 1 });
    try {
      own.warm();
      own.warm(); // one is already booting: no second worker
      expect(own.workersStarted).toBe(1);
      expect(await own('globalThis.leaked = 1;\nObject.prototype.polluted = 1;\nexport const a = 1;', 'first.js')).toMatchObject({ ok: true, exports: ['a'] });
      own.warm(); // one is idle: nothing to start
      const second = await own('if ("leaked" in globalThis || ({}).polluted !== undefined) throw new Error("state leaked");\nexport const b = 2;', 'second.js');
      expect(second).toMatchObject({ ok: true, exports: ['b'] });
      expect(own.workersStarted).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('close() ends a warmed worker no probe took; the next probe boots its own', async () => {
    const own = createProbe({ deadlineMs: 2_000, concurrency: 1 });
    try {
      own.warm();
      await own.close();
      expect(await own('export const a = 1;', 'a.js')).toMatchObject({ ok: true, exports: ['a'] });
      expect(own.workersStarted).toBe(2);
    } finally {
      await own.close();
    }
  });

  it('keeps using a worker after a module ran out of time inside it', async () => {
    const own = createProbe({ deadlineMs: 200, concurrency: 1 });
    try {
      expect(await own('for (;;) {}\nexport const x = 1;', 'loop.js')).toEqual({
        ok: false,
        code: 'timeout',
        message: 'The code ran longer than its 200 ms time limit and was stopped.',
        transient: true,
      });
      expect(await own('export const b = 2;', 'b.js')).toMatchObject({ ok: true, exports: ['b'] });
      expect(own.workersStarted).toBe(1);
    } finally {
      await own.close();
    }
  });
});
