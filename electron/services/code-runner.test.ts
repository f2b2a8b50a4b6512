// A run's inputs are checked once, by the contract's schema, on every face's way in — the CLI's
// too, whose runs go through the dispatcher as the others' do: a reserved input name or an input
// nested past the depth limit fails the call with a sentence naming each input before any worker
// starts, and inputs that keep the rules reach the code. Real catalog over a fixture root.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';
import { REPO_ROOT } from '../testing/test-support.ts';
import { createDispatcher, type Dispatcher, type Handlers } from '../../shared/contract/dispatcher.ts';
import { createCodeRunner, type CodeRunner } from './code-runner.ts';
import { codeHandlers } from './code-handlers.ts';

let runner: CodeRunner;
let dispatcher: Dispatcher;
beforeAll(async () => {
  const catalog = await openRootCatalog(path.join(REPO_ROOT, 'fixtures/discovery/good'));
  if (!catalog.ok) throw new Error(catalog.message);
  runner = createCodeRunner(catalog.value, { sandboxWorkers: 1, wasmLanes: 1 });
  // Only code.run is called here.
  dispatcher = createDispatcher(codeHandlers(runner, catalog.value) as unknown as Handlers);
});
afterAll(() => runner.close());

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const run = (inputs: Record<string, unknown>) =>
  dispatcher.handle('code.run', { code: 'return typeof fetch;', packages: [], inputs, timeoutMs: 5000 }, { face: 'cli', grants: {} });

describe('code.run inputs on the CLI face', () => {
  it('refuses reserved names and too-deep values with one sentence naming each input', async () => {
    expect(await run({ fetch: 1, ok: 2, deep: nested(3000) })).toEqual({
      ok: false,
      code: 'invalid-request',
      message: `code.run: inputs.fetch: the input "fetch" has the name of a sandbox global the code cannot rebind (console, fetch, getSecret, workspace, Function, undefined, NaN, Infinity); rename the input; inputs.deep: the input "deep" is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed into the sandbox may have`,
    });
  });

  it('runs inputs that keep the rules', async () => {
    const outcome = await run({ ok: nested(LIMITS.jsonDepth) });
    expect(outcome).toMatchObject({ ok: true, value: { result: { ok: true, value: 'function' } } });
  });
});
