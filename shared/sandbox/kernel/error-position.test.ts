// Error positions against the real engine (quickjs-ng) through the kernel: every kind of failure
// names the user's own line and column — a throw, a rejected promise, a syntax error, a property
// read of null and a name that is not defined (which the engine itself misplaces), and an error
// from inside a pack's module, located in the module and at the node's line that called it.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type GuestModule, type KernelRunRequest, type RunResult } from '../../protocol/run.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { refineErrorPosition } from './error-position.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const PACK: GuestModule = {
  moduleId: 'm-acme-tools',
  kind: 'js',
  packName: '@acme/tools',
  packVersion: '1.0.0',
  displayName: '@acme/tools',
  source: 'export function pick(row) {\n  const table = null;\n  return table[row];\n}\nexport function fail() {\n  throw new Error("from the pack");\n}\n',
  imports: {},
  digest: 'sha256-test',
};

async function run(code: string): Promise<RunResult> {
  const request: KernelRunRequest = {
    code,
    entries: { '@acme/tools': PACK.moduleId },
    modules: { [PACK.moduleId]: PACK },
    inputs: {},
    grants: NO_GRANTS,
    timeoutMs: 5000,
  };
  const outcome = await runKernel(request, {
    engine: await loadQuickJsNg(),
    ...SYSTEM_CLOCK,
    hostCall: async () => ({ ok: false, code: 'internal', message: 'unused' }),
  });
  return outcome.result;
}

const failure = async (code: string) => {
  const result = await run(code);
  return result.ok ? 'no failure' : `${result.code}: ${result.message}`;
};

describe('error positions', () => {
  it('names line 5 for a property read of null on line 5 (the engine says line 1)', async () => {
    expect(await failure('console.log("start");\nconst x = null;\nconst a = 1;\nconst b = 2;\nreturn x.y;\n')).toBe(
      "runtime-error: TypeError: cannot read property 'y' of null (line 5, column 10)",
    );
  });

  it('names the line of a name that is not defined (the engine names none)', async () => {
    const code = `const a = 1;\n${'\n'.repeat(11)}setTimeout(() => a, 10);\n`;
    expect(await failure(code)).toBe('runtime-error: ReferenceError: setTimeout is not defined (line 13, column 1)');
  });

  it('names the read inside a function, not the function start', async () => {
    expect(await failure('const x = null;\nfunction f() {\n  const y = 1;\n  return x.y + y;\n}\nf();')).toBe(
      "runtime-error: TypeError: cannot read property 'y' of null (line 4, column 12)",
    );
  });

  it('names the read that failed in a later iteration of a loop', async () => {
    expect(await failure('const rows = [{ v: { n: 1 } }, {}];\nlet t = 0;\nfor (const r of rows) {\n  t += r.v.n;\n  console.log(t);\n}\nreturn t;')).toBe(
      "runtime-error: TypeError: cannot read property 'n' of undefined (line 4, column 12)",
    );
  });

  it('names a destructuring of null, and leaves a built-in given null at its call', async () => {
    expect(await failure('console.log(1);\nconst o = null;\nconst { a } = o;')).toBe(
      'runtime-error: TypeError: Cannot convert undefined or null to object (line 3, column 7)',
    );
    expect(await failure('const { a } = { a: 1 };\nconsole.log(a);\nObject.keys(null);')).toBe(
      'runtime-error: TypeError: Cannot convert undefined or null to object (line 3, column 13)',
    );
  });

  it('names the line of a throw and of a rejected promise', async () => {
    expect(await failure('console.log("start");\nconst x = 1;\n\nthrow new Error("boom");\n')).toBe('runtime-error: Error: boom (line 4, column 11)');
    expect(await failure('const a = 1;\n\nawait Promise.reject(new Error("rejected"));\n')).toBe('runtime-error: Error: rejected (line 3, column 26)');
    expect(await failure('const a = 1;\nawait new Promise((_, reject) => {\n  reject(new TypeError("later"));\n});')).toBe(
      'runtime-error: TypeError: later (line 3, column 14)',
    );
  });

  it('names the line and column of a syntax error', async () => {
    expect(await failure('const a = 1;\nconst b = ;\n')).toBe('syntax-error: Syntax error: Unexpected token (line 2, column 11).');
  });

  it("names the pack module's line and the node's line that called it", async () => {
    expect(await failure('import { fail } from "@acme/tools";\nconst a = 1;\nfail();')).toBe(
      'runtime-error: Error: from the pack (in @acme/tools, line 6, column 13; called from line 3, column 1)',
    );
    expect(await failure('import { pick } from "@acme/tools";\n\nreturn pick(2);')).toBe(
      "runtime-error: TypeError: cannot read property '2' of null (in @acme/tools, line 3, column 16; called from line 3, column 8)",
    );
  });

  it('leaves errors the engine places well, and unknown names, alone', () => {
    expect(refineErrorPosition('f();', 'node-code', { name: 'TypeError', message: 'not a function' }, { line: 1, column: 1 })).toBeUndefined();
    expect(refineErrorPosition('a.b;', 'node-code', { name: 'ReferenceError', message: 'q is not defined' }, undefined)).toBeUndefined();
  });
});
