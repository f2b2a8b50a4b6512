// code.run inputs over the real web host (the HTTP face of the shared contract; IPC parses with
// the same schema): inputs nested thousands of levels deep are a 400 with the depth limit in the
// sentence, not a 500 and a logged bug (zod used to run out of stack on them); an input named
// after a locked sandbox global is a 400 naming the input, not silently dropped. Workflow saves
// and settings, whose schemas read untrusted JSON too, answer such values with a 400 as well.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { raw, REPO_ROOT, startFixtureHost, type FixtureHost } from '../testing/test-support.ts';

let app: FixtureHost;

beforeAll(async () => {
  app = await startFixtureHost([path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo')]);
});

afterAll(async () => {
  await app?.close();
});

const rpcText = (method: string, body: string) =>
  raw(app.host.port, {
    method: 'POST',
    path: `/api/rpc/${method}`,
    headers: { Authorization: `Bearer ${app.host.token}`, 'Content-Type': 'application/json' },
    body,
  });
const rpc = (method: string, body: unknown) => rpcText(method, JSON.stringify(body));

/** JSON text nested `depth` deep, built without recursion (JSON.stringify itself overflows near 5,000). */
function nestedText(depth: number): string {
  let open = '';
  let close = '';
  for (let i = depth - 1; i >= 0; i--) {
    open += i % 2 ? '[' : '{"k":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { k: value };
  return value;
}

describe('code.run inputs', () => {
  it('answers inputs nested 3,000 deep with 400 and the depth limit, not 500', async () => {
    const res = await rpcText('code.run', `{"code":"return 1;","packages":[],"inputs":{"ok":1,"x":${nestedText(3000)}}}`);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      ok: false,
      code: 'invalid-request',
      message: `code.run: inputs.x: the input "x" is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed into the sandbox may have`,
    });
  });

  it(`runs inputs nested exactly ${LIMITS.jsonDepth} deep`, async () => {
    const res = await rpc('code.run', { code: 'return JSON.stringify(x).length;', packages: [], inputs: { x: nested(LIMITS.jsonDepth) } });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, value: { result: { ok: true, value: JSON.stringify(nested(LIMITS.jsonDepth)).length } } });
  });

  it('refuses an input named after a locked sandbox global, naming it', async () => {
    for (const name of ['fetch', 'console', 'getSecret', 'workspace']) {
      const res = await rpc('code.run', { code: 'return 1;', packages: [], inputs: { [name]: 'mine' } });
      expect(res.status, name).toBe(400);
      expect(res.json()).toEqual({
        ok: false,
        code: 'invalid-request',
        message: `code.run: inputs.${name}: the input "${name}" has the name of a sandbox global the code cannot rebind (console, fetch, getSecret, workspace, Function, undefined, NaN, Infinity); rename the input`,
      });
    }
  });
});

describe('other schemas over untrusted JSON', () => {
  it('answers values nested 20,000 deep in a workflow save, a validation, settings and a run with 400', async () => {
    const deep = nestedText(20_000);
    const node = '"id":"a","type":"code","code":"return 1;"';
    for (const [method, body] of [
      ['workflows.save', `{"name":"w","workflow":{"nodes":[{${node},"packages":[],"grants":{"workspace":${deep}}}]}}`],
      ['workflows.save', `{"name":"w","workflow":{"nodes":[{${node},"packages":[],"extra":${deep}}]}}`],
      ['workflows.save', `{"name":"w","workflow":{"nodes":[{${node},"packages":[${deep}]}]}}`],
      ['code.validate', `{"workflow":{"nodes":[{${node},"packages":${deep}}]}}`],
      ['settings.setSessionAllowlist', `{"sessionAllowlist":[${deep}]}`],
      ['settings.setRegistry', `{"registry":${deep}}`],
      ['code.run', `{"code":"return 1;","packages":[],"inputs":{"x":${deep}}}`],
    ] as const) {
      const res = await rpcText(method, body);
      expect(res.status, method).toBe(400);
      expect(res.json(), method).toMatchObject({ ok: false, code: 'invalid-request' });
    }
  });
});
