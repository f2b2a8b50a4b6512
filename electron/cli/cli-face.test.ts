// The CLI as a face of the contract: one argv parser for every command (--root DIR and --root=DIR
// alike, --registry checked by the contract's schema wherever it is taken), CLI input checked by
// the contract's request schemas (a refused request is bad usage, exit 2), and the grants the
// contract does not carry honoured only for face 'cli'.

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHandlers } from '../services/code-handlers.ts';
import { createCodeRunner } from '../services/code-runner.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';
import { parseCliArgs } from './args.ts';
import { EXIT, UsageError } from './command.ts';
import { main } from './main.ts';

const repo = path.resolve(import.meta.dirname, '..', '..');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-cli-face-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), cwd: dir, env: { SANDBOX_PACKS_ROOT: path.join(dir, 'default-root') } });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('parseCliArgs', () => {
  const specs = { root: 'string', json: 'boolean', package: 'strings' } as const;

  it('reads --root DIR and --root=DIR alike, repeatable options in order, positionals after --', () => {
    expect(parseCliArgs(['a', '--root', 'r', '--package', 'x', '--package=y', '--json', '--', '--b'], specs)).toEqual({
      values: { root: 'r', json: true, package: ['x', 'y'] },
      positionals: ['a', '--b'],
    });
    expect(parseCliArgs(['--root=r'], specs).values).toEqual({ root: 'r', json: false, package: [] });
  });

  it('says what is wrong in one sentence', () => {
    const usage = (args: string[], options?: { positionals: boolean }) => {
      try {
        parseCliArgs(args, specs, options);
      } catch (error) {
        return error instanceof UsageError ? error.message : `not a usage error: ${String(error)}`;
      }
      return 'accepted';
    };
    expect(usage(['--frobnicate'])).toBe('Unknown option "--frobnicate".');
    expect(usage(['--root'])).toBe('--root needs a value.');
    expect(usage(['--root', '--json'])).toBe('--root needs a value.');
    expect(usage(['--root='])).toBe('--root needs a value.');
    expect(usage(['--json=yes'])).toBe('--json takes no value.');
    expect(usage(['extra'], { positionals: false })).toBe('Unexpected argument "extra".');
  });
});

describe('the CLI face', () => {
  it("checks --registry with the contract's schema in every command that takes it, before touching anything", async () => {
    for (const command of [
      ['install', 'x', '--root', 'r'],
      ['update', 'x', '--root', 'r'],
      ['search', 'x', '--root', 'r'],
      ['first-run', '--root', 'r'],
      ['check', dir],
    ]) {
      const run = await cli([...command, '--registry', 'ftp://example.com/']);
      expect({ command: command[0], code: run.code, first: run.err.split('\n')[0] }).toEqual({
        command: command[0],
        code: EXIT.usage,
        first: '--registry "ftp://example.com/": a registry is an http(s) URL without credentials.',
      });
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('treats --root DIR and --root=DIR the same in every root command', async () => {
    const spaced = await cli(['list', '--root', 'r', '--json']);
    const joined = await cli(['list', '--root=r', '--json']);
    expect(spaced).toEqual({ code: EXIT.ok, out: '{"ok":true,"packs":[]}', err: '' });
    expect(joined).toEqual(spaced);
  });

  it('answers a request the contract refuses as bad usage (exit 2), without running anything', async () => {
    const blank = await cli(['install', '   ', '--root', 'r', '--json']);
    expect(blank.code).toBe(EXIT.usage);
    expect(JSON.parse(blank.out)).toEqual({
      ok: false,
      code: 'invalid-request',
      message: 'packs.install: spec: Too small: expected string to have >=1 characters',
    });
    const host = await cli([
      'run',
      path.join(repo, 'fixtures/kernel/code/workspace.js'),
      '--root',
      path.join(repo, 'fixtures/discovery/good'),
      '--allow-fetch',
      'http://example.com/',
    ]);
    expect(host.code).toBe(EXIT.usage);
    expect(host.err.split('\n')[0]).toBe('code.run: fetchHosts.0: a host is a lower-case DNS name, optionally starting with "*."');
  }, 60_000);

  it('honours a workspace grant in the call context for face cli only', async () => {
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'sp-cli-face-ws-'));
    const catalog = await openRootCatalog(path.join(repo, 'fixtures/discovery/good'));
    if (!catalog.ok) throw new Error(catalog.message);
    const runner = createCodeRunner(catalog.value, { sandboxWorkers: 1, wasmLanes: 1 });
    try {
      const run = codeHandlers(runner, catalog.value)['code.run'];
      const code = await readFile(path.join(repo, 'fixtures/kernel/code/workspace.js'), 'utf8');
      const grants = { workspace: { dir: workspace } };
      for (const face of ['ipc', 'http', 'mcp'] as const) {
        const answer = await run({ code, packages: [] }, { face, grants });
        expect(answer).toMatchObject({ ok: true, value: { result: { ok: false, code: 'capability-denied' } } });
      }
      expect(await readdir(workspace)).toEqual([]);
      expect(await run({ code, packages: [] }, { face: 'cli', grants })).toMatchObject({
        ok: true,
        value: { result: { ok: true, value: [{ name: 'out.txt', kind: 'file' }] } },
      });
    } finally {
      await runner.close();
      await rm(workspace, { recursive: true, force: true });
    }
  }, 60_000);
});
