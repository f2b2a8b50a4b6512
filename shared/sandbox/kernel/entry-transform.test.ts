import { describe, expect, it } from 'vitest';
import { analyzeUserCode, buildEntryModule } from './entry-transform.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';
import { NO_GRANTS } from '../../protocol/run.ts';

async function run(code: string) {
  const engine = await loadQuickJsNg();
  const outcome = await runKernel(
    { code, entries: {}, modules: {}, inputs: { input: { n: 4 } }, grants: NO_GRANTS, timeoutMs: 2000 },
    {
      engine,
      ...SYSTEM_CLOCK,
      hostCall: async () => ({ ok: false, code: 'internal', message: 'unused' }),
    },
  );
  return outcome.result;
}

describe('analyzeUserCode', () => {
  it('lists static imports with their positions', () => {
    const result = analyzeUserCode('const a = 1;\nimport { x } from "@acme/geo";\nimport "@acme/side";\nreturn x;');
    expect(result).toMatchObject({ ok: true });
    if (result.ok)
      expect(result.value.imports).toEqual([
        { specifier: '@acme/geo', line: 2, column: 1 },
        { specifier: '@acme/side', line: 3, column: 1 },
      ]);
  });

  it("reports syntax errors at the user's line and column", () => {
    expect(analyzeUserCode('const a = 1;\nconst = 2;')).toEqual({
      ok: false,
      code: 'syntax-error',
      message: 'Syntax error: Unexpected token (line 2, column 7).',
    });
  });

  it('rejects import() wherever it appears, with its position', () => {
    expect(analyzeUserCode('function f() {\n  return import("x");\n}')).toEqual({
      ok: false,
      code: 'dynamic-import',
      message: 'import() is not allowed in sandbox code; use a static import of a package declared on this node (line 2, column 10).',
    });
  });

  it('rejects export, which has no meaning in a Code node', () => {
    expect(analyzeUserCode('export const a = 1;')).toEqual({
      ok: false,
      code: 'syntax-error',
      message: 'Syntax error: Code node code cannot use "export"; return the result instead (line 1, column 1).',
    });
  });
});

describe('buildEntryModule', () => {
  it('hoists imports out of the IIFE and keeps user text in place', () => {
    const built = buildEntryModule('import { x } from "p";\nreturn x;');
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.value.source.split('\n')[0]).toMatch(/export default await \(async \(\) => \{ {22}$/);
    // The user's imports, then the kernel's inputs module: inputs are bound once every import has evaluated.
    expect(built.value.source.trimEnd().split('\n').slice(-2)).toEqual([
      'import { x } from "p";',
      'import { bind as __sandboxBindInputs } from "sandbox:inputs";',
    ]);
    expect(built.value.source.startsWith('__sandboxBindInputs(); ')).toBe(true);
    expect(built.value.mapPosition(2, 1)).toEqual({ line: 2, column: 1 });
  });
});

describe('entry semantics through the kernel', () => {
  it('returns the last expression statement when there is no top-level return', async () => {
    expect(await run('const a = 2;\na * 21;')).toMatchObject({ ok: true, value: 42 });
  });

  it('keeps a parenthesized last expression intact', async () => {
    expect(await run('const n = 3;\n({ n, twice: n * 2 })')).toMatchObject({ ok: true, value: { n: 3, twice: 6 } });
  });

  it('returns a lone string literal (not treated as a directive)', async () => {
    expect(await run('"hello"')).toMatchObject({ ok: true, value: 'hello' });
  });

  it('honours an explicit top-level return, even inside a block', async () => {
    expect(await run('if (true) { return "early"; }\n"late"')).toMatchObject({ ok: true, value: 'early' });
  });

  it('does not treat a return inside a function as top-level', async () => {
    expect(await run('function f() { return 1; }\nf() + 1')).toMatchObject({ ok: true, value: 2 });
  });

  it('supports top-level await', async () => {
    expect(await run('const v = await Promise.resolve(5);\nv + 1')).toMatchObject({ ok: true, value: 6 });
  });

  it('binds inputs as globals', async () => {
    expect(await run('input.n * 10')).toMatchObject({ ok: true, value: 40 });
  });

  it('gives undefined results as null', async () => {
    expect(await run('let a = 1;')).toMatchObject({ ok: true, value: null });
  });

  it("reports a runtime error at the user's own line and column", async () => {
    expect(await run('function check(x) {\n  if (!x) throw new Error("missing x");\n}\ncheck(0);')).toMatchObject({
      ok: false,
      code: 'runtime-error',
      message: 'Error: missing x (line 2, column 21)',
    });
  });

  it("reports a position on the first line relative to the user's text (prefix removed)", async () => {
    expect(await run('throw new RangeError("bad input")')).toMatchObject({
      ok: false,
      code: 'runtime-error',
      message: 'RangeError: bad input (line 1, column 10)',
    });
  });

  it('locates a property read of null, which the engine places at the module start', async () => {
    expect(await run('const b = null;\nconst c = b.field;\nc')).toMatchObject({
      ok: false,
      code: 'runtime-error',
      message: "TypeError: cannot read property 'field' of null (line 2, column 13)",
    });
  });

  it('refuses results that are not JSON', async () => {
    expect(await run('const a = {}; a.self = a; a')).toMatchObject({ ok: false, code: 'result-invalid' });
  });

  it('passes bytes out as tagged base64', async () => {
    expect(await run('new Uint8Array([104, 105])')).toMatchObject({ ok: true, value: { __sandboxBytes: 'aGk=' } });
  });
});
