// `sandbox-packs serve` as a user runs it: a real child process, the printed URL, a real request
// with the token from that URL, then Ctrl-C (SIGINT) closes it cleanly with exit code 0.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir, type TempDir } from '../../testing/test-support.ts';
import { EXAMPLE, EXAMPLE_CODE } from '../../first-run/index.ts';
import { FIRST_RUN_MESSAGES, stillSettingUp } from '../../first-run/background.ts';
import { shippedPrecompiled } from '../../first-run/shipped-tarballs.ts';
import { parseServeArgs } from './serve.ts';

let data: TempDir;
beforeAll(async () => {
  data = await tempDir('serve');
});
afterAll(async () => {
  await data?.remove();
});

describe('serve arguments', () => {
  it('parses --root and --port and refuses the rest', () => {
    expect(parseServeArgs(['--root', 'x', '--port', '8080'])).toEqual({ root: 'x', port: 8080 });
    expect(parseServeArgs([])).toEqual({ port: 0 });
    expect(() => parseServeArgs(['--port', '70000'])).toThrow('--port must be a number from 0 to 65535, not "70000".');
    expect(() => parseServeArgs(['--port'])).toThrow('--port needs a value.');
    expect(() => parseServeArgs(['--host', '0.0.0.0'])).toThrow('Unknown option "--host".');
  });
});

describe('sandbox-packs serve', () => {
  it('prints a tokenized 127.0.0.1 URL, answers with that token, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts/sandbox-packs.mjs'), 'serve', '--root', data.path, '--port', '0'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      for (let i = 0; i < 600 && !/Open http/.test(out); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const match = /Open (http:\/\/127\.0\.0\.1:(\d+))\/#token=([A-Za-z0-9_-]+)/.exec(out);
      expect(match, out).not.toBeNull();
      const [, origin, , token] = match!;
      const ok = await fetch(`${origin}/api/rpc/settings.get`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(await ok.json()).toEqual({ ok: true, value: { registry: 'https://registry.npmjs.org/', sessionAllowlist: [] } });
      const denied = await fetch(`${origin}/api/rpc/settings.get`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(denied.status).toBe(401);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(out).toContain('Stopped (SIGINT).');
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    }
  }, 60_000);
});

describe('sandbox-packs serve on a fresh default data directory', () => {
  it('prints the address before the shipped packs are seeded, holds runs that need them, then runs them', async () => {
    await shippedPrecompiled(); // built once per content, as the staged app ships it
    const fresh = await tempDir('serve-first-run');
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts/sandbox-packs.mjs'), 'serve', '--port', '0'], {
      cwd: REPO_ROOT,
      env: { ...process.env, SANDBOX_PACKS_ROOT: fresh.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      for (let i = 0; i < 600 && !/Open http/.test(out); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const match = /Open (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)/.exec(out);
      expect(match, out).not.toBeNull();
      const [, origin, token] = match!;
      const run = () =>
        fetch(`${origin}/api/rpc/code.run`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ code: EXAMPLE_CODE, packages: EXAMPLE.nodes[0]!.packages }),
        }).then((r) => r.json());
      // The seeding (one npm run and more) has only just started when the address is printed.
      expect(out).not.toContain(FIRST_RUN_MESSAGES.done);
      expect(await run()).toEqual({ ok: false, code: 'busy', message: stillSettingUp('@nodetool-ai/sandbox-yaml') });
      for (let i = 0; i < 1200 && !out.includes(FIRST_RUN_MESSAGES.done); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(out).toContain(FIRST_RUN_MESSAGES.done);
      expect(await run()).toMatchObject({ ok: true, value: { result: { ok: true, value: 'Berlin → Paris: 877 km' } } });
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await fresh.remove();
    }
  }, 240_000);
});
