import { describe, expect, it } from 'vitest';
import { createProbe } from './probe.ts';

const probe = createProbe({ deadlineMs: 2_000 });

describe('admission probe (real quickjs-ng in a worker)', () => {
  it('imports a module and lists its exports', async () => {
    const result = await probe('export const a = 1; export default function () {}', 'm.js');
    expect(result.ok && result.exports).toEqual(['a', 'default']);
  });

  it('refuses code generation, like a real run', async () => {
    expect(await probe('export const f = (function () {}).constructor("return 1");', 'm.js')).toEqual({ ok: false, error: 'EvalError: code generation is not allowed in the sandbox' });
    expect(await probe('export const v = globalThis.eval;\nif (v !== undefined) throw new Error("eval present");', 'm.js')).toMatchObject({ ok: true });
  });

  it('caps console output while initializing', async () => {
    expect(await probe('for (let i = 0; i < 1000; i++) console.log("x".repeat(100));\nexport const done = true;', 'm.js')).toEqual({
      ok: false,
      error: 'the module wrote more than 65536 bytes of console output while initializing',
    });
  });

  it('fails a module whose top-level await never settles', async () => {
    expect(await probe('await new Promise(() => {});\nexport const x = 1;', 'm.js')).toEqual({
      ok: false,
      error: 'the module never finished initializing (top-level await on a promise that never settles)',
    });
  });

  it('denies every import: a bundle must be self-contained', async () => {
    const result = await probe('import "node:fs";\nexport const x = 1;', 'm.js');
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toContain('import of "node:fs" denied');
  });

  it('stops a memory bomb at the guest memory limit', async () => {
    const result = await probe('const a = []; for (;;) a.push(new Array(1e6).fill(1));\nexport const x = a;', 'm.js');
    expect(result.ok ? '' : result.error).toMatch(/out of memory|InternalError: interrupted/);
  });
});
