// The workspace capability on real temp directories, including a symlink planted inside the
// workspace that points outside it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceCapability } from './workspace-capability.ts';

let base: string;
let dir: string;
let outside: string;
beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'sp-workspace-'));
  dir = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await fs.mkdir(path.join(dir, 'sub'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'top secret');
  await fs.writeFile(path.join(dir, 'hello.txt'), 'hello');
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(dir, 'link.txt'));
  await fs.symlink(outside, path.join(dir, 'linkdir'));
});
afterAll(() => fs.rm(base, { recursive: true, force: true }));

const text = (value: unknown) => new TextDecoder().decode(value as Uint8Array);

describe('workspace capability', () => {
  it('reads, writes and lists inside the granted directory', async () => {
    const ws = new WorkspaceCapability({ dir });
    const read = await ws.call('workspace.read', ['hello.txt']);
    expect(read.ok && text(read.value)).toBe('hello');
    expect(await ws.call('workspace.write', ['sub/new.txt', new TextEncoder().encode('made')])).toEqual({ ok: true, value: null });
    expect(await fs.readFile(path.join(dir, 'sub', 'new.txt'), 'utf8')).toBe('made');
    expect(await ws.call('workspace.list', ['.'])).toEqual({
      ok: true,
      value: [
        { name: 'hello.txt', kind: 'file' },
        { name: 'link.txt', kind: 'other' },
        { name: 'linkdir', kind: 'other' },
        { name: 'sub', kind: 'directory' },
      ],
    });
  });

  it('refuses .., absolute paths and symlinks that leave the directory', async () => {
    const ws = new WorkspaceCapability({ dir });
    for (const p of ['../outside/secret.txt', path.join(outside, 'secret.txt'), 'link.txt', 'linkdir/secret.txt']) {
      expect(await ws.call('workspace.read', [p])).toEqual({
        ok: false,
        code: 'capability-denied',
        message: `workspace: ${JSON.stringify(p)} is outside this node's workspace directory.`,
      });
    }
    expect(await ws.call('workspace.write', ['linkdir/planted.txt', new Uint8Array([1])])).toMatchObject({ ok: false, code: 'capability-denied' });
    expect(await ws.call('workspace.write', ['link.txt', new Uint8Array([1])])).toMatchObject({ ok: false, code: 'capability-denied' });
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    await expect(fs.access(path.join(outside, 'planted.txt'))).rejects.toThrow();
  });

  it('refuses a named pipe at once instead of blocking until a writer opens it', async () => {
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const ws = new WorkspaceCapability({ dir });
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<string>((resolve) => setTimeout(() => resolve('still pending after 2 s'), 2000))]);
    expect(await within(ws.call('workspace.read', ['pipe']))).toEqual({
      ok: false,
      code: 'workspace-failed',
      message: 'workspace: "pipe" is not a regular file.',
    });
    expect(await within(ws.call('workspace.write', ['pipe', new Uint8Array([1])]))).toEqual({
      ok: false,
      code: 'workspace-failed',
      message: 'workspace: "pipe" is not a regular file.',
    });
  });

  it('reports a missing file as a workspace failure', async () => {
    const ws = new WorkspaceCapability({ dir });
    expect(await ws.call('workspace.read', ['nope.txt'])).toEqual({
      ok: false,
      code: 'workspace-failed',
      message: 'workspace: "nope.txt": no such file or directory.',
    });
  });
});
