// The CLI's own surface: --version names the npm and runtime in use, and a bug ends in one sentence
// rather than a stack trace. (Expected failures are tagged sentences: the staged CLI's are checked
// by scripts/verify-backend-bundle.mjs, the runner's by electron/install/npm-runner.test.ts.)

import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { npmCliPath } from '../platform/app-runtime.ts';
import { EXIT, type CliCommand } from './command.ts';
import { main, unexpectedErrorText } from './main.ts';

const repo = path.resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as { version: string; dependencies: { npm: string } };

async function capture(argv: string[], commands?: CliCommand[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), env, cwd: repo }, commands);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('sandbox-packs --version', () => {
  it('names the app, the npm it ships and the runtime in use', async () => {
    const run = await capture(['--version']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.out).toBe(
      [
        `sandbox-packs ${pkg.version}`,
        `npm ${pkg.dependencies.npm} (the app's own, ${npmCliPath()})`,
        `runtime Node ${process.versions.node} (${process.execPath})`,
      ].join('\n'),
    );
    const json = await capture(['--version', '--json']);
    expect(JSON.parse(json.out)).toEqual({
      app: pkg.version,
      npm: pkg.dependencies.npm,
      node: process.versions.node,
      npmPath: npmCliPath(),
      runtimePath: process.execPath,
    });
  });
});

describe('errors without stack traces', () => {
  const broken: CliCommand = {
    name: 'broken',
    summary: 'throws',
    options: {},
    usage: 'Usage: sandbox-packs broken',
    run: () => Promise.reject(new Error('kaboom')),
  };

  it('turns an error nothing expected into one sentence and exit 1', async () => {
    const run = await capture(['broken'], [broken]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.err).toBe(
      'sandbox-packs stopped on an unexpected error: kaboom. This is a bug in sandbox-packs; please report it with the command you ran (set SANDBOX_PACKS_DEBUG=1 to see where it happened).',
    );
    const debug = await capture(['broken'], [broken], { SANDBOX_PACKS_DEBUG: '1' });
    expect(debug.err).toMatch(/^sandbox-packs stopped on an unexpected error: kaboom\. .*\nError: kaboom\n {4}at /);
  });

  it('prints a non-Error throw the same way', () => {
    expect(unexpectedErrorText('plain', {})).toBe(
      'sandbox-packs stopped on an unexpected error: plain. This is a bug in sandbox-packs; please report it with the command you ran (set SANDBOX_PACKS_DEBUG=1 to see where it happened).',
    );
  });

  it('ends the process with the same sentence for an error that escapes every await', () => {
    // What a child's 'error' event with no listener does: it throws outside main's try.
    const script = [
      `const { runAsProcess } = await import(${JSON.stringify(path.join(repo, 'electron/cli/main.ts'))});`,
      "setTimeout(() => { throw new Error('late failure'); }, 50);",
      "await runAsProcess(['--version']);",
      'setTimeout(() => {}, 2000);',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, SANDBOX_PACKS_DEBUG: '' },
    });
    expect(run.status).toBe(EXIT.failed);
    expect(run.stderr).toBe(
      'sandbox-packs stopped on an unexpected error: late failure. This is a bug in sandbox-packs; please report it with the command you ran (set SANDBOX_PACKS_DEBUG=1 to see where it happened).\n',
    );
  });
});
