// The code runner is the CLI's way in (it does not go through the contract's schema), so it
// applies the same input rules itself: a reserved input name or an input nested past the depth
// limit fails the call with a sentence before any worker starts. Real catalog over a fixture root.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';
import { REPO_ROOT } from '../testing/test-support.ts';
import { createCodeRunner, type CodeRunner } from './code-runner.ts';

let runner: CodeRunner;
beforeAll(async () => {
  const catalog = await openRootCatalog(path.join(REPO_ROOT, 'fixtures/discovery/good'));
  if (!catalog.ok) throw new Error(catalog.message);
  runner = createCodeRunner(catalog.value, { sandboxWorkers: 1, wasmLanes: 1 });
});
afterAll(() => runner.close());

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const request = (inputs: Record<string, unknown>) => ({ code: 'return typeof fetch;', packages: [], inputs, grants: {}, timeoutMs: 5000 });

describe('code runner inputs', () => {
  it('refuses reserved names and too-deep values with one sentence naming each input', async () => {
    expect(await runner.run(request({ fetch: 1, ok: 2, deep: nested(3000) }))).toEqual({
      ok: false,
      code: 'invalid-data',
      message: `Inputs: the input "fetch" has the name of a sandbox global the code cannot rebind (console, fetch, getSecret, workspace, Function, undefined, NaN, Infinity); rename the input; the input "deep" is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed into the sandbox may have.`,
    });
  });

  it('runs inputs that keep the rules', async () => {
    const outcome = await runner.run(request({ ok: nested(LIMITS.jsonDepth) }));
    expect(outcome).toMatchObject({ ok: true, value: { result: { ok: true, value: 'function' } } });
  });
});
