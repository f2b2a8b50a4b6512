import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_DIR, acquireRootLock } from './root-lock.ts';

const roots: string[] = [];
function tempRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sp-lock-'));
  roots.push(root);
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('acquireRootLock', () => {
  it('answers busy while a live owner holds the root, and frees it on release', async () => {
    const root = tempRoot();
    const first = await acquireRootLock(root, 'install');
    expect(first.ok).toBe(true);
    const second = await acquireRootLock(root, 'update');
    expect(second).toMatchObject({ ok: false, code: 'busy' });
    if (!second.ok) expect(second.message).toContain(`(install, process ${process.pid}, since `);
    if (first.ok) await first.value.release();
    expect(existsSync(path.join(root, LOCK_DIR))).toBe(false);
    const third = await acquireRootLock(root, 'update');
    expect(third).toMatchObject({ ok: true, value: { tookOverStale: false } });
    if (third.ok) await third.value.release();
  });

  it('takes over a lock whose owner process is dead (a crash must not block the root forever)', async () => {
    const root = tempRoot();
    const child = spawn(process.execPath, ['-e', '0']);
    await once(child, 'exit');
    mkdirSync(path.join(root, LOCK_DIR));
    writeFileSync(
      path.join(root, LOCK_DIR, 'owner.json'),
      JSON.stringify({ pid: child.pid, host: os.hostname(), startedAt: new Date().toISOString(), operation: 'install' }),
    );
    const lock = await acquireRootLock(root, 'reconcile');
    expect(lock).toMatchObject({ ok: true, value: { tookOverStale: true } });
    if (lock.ok) await lock.value.release();
  });

  it('waits for the owner when asked to', async () => {
    const root = tempRoot();
    const first = await acquireRootLock(root, 'install');
    if (!first.ok) throw new Error('first lock failed');
    setTimeout(() => void first.value.release(), 300);
    const second = await acquireRootLock(root, 'update', 5000);
    expect(second.ok).toBe(true);
    if (second.ok) await second.value.release();
  });

  it('says once that it waits, then answers busy with the owner and the time waited', async () => {
    const root = tempRoot();
    const first = await acquireRootLock(root, 'install');
    if (!first.ok) throw new Error('first lock failed');
    const told: string[] = [];
    const second = await acquireRootLock(root, 'update', 300, { onWait: (owner) => told.push(`${owner?.operation} ${owner?.pid}`) });
    expect(told).toEqual([`install ${process.pid}`]);
    expect(second).toMatchObject({ ok: false, code: 'busy' });
    if (!second.ok)
      expect(second.message).toMatch(
        new RegExp(
          `^Another operation \\(install, process ${process.pid}, since .+\\) is still running on the install root .+ after waiting 300 ms; try again when it has finished\\.$`,
        ),
      );
    await first.value.release();
  });

  it('is not stale while an npm its dead owner started still runs; taken over once that npm has exited', async () => {
    const root = tempRoot();
    const owner = spawn(process.execPath, ['-e', '0']);
    await once(owner, 'exit');
    // Stands in for the orphaned npm: alive until its stdin closes.
    const npm = spawn(process.execPath, ['-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    mkdirSync(path.join(root, LOCK_DIR));
    const record = { pid: owner.pid, host: os.hostname(), startedAt: new Date().toISOString(), operation: 'install', children: [npm.pid] };
    writeFileSync(path.join(root, LOCK_DIR, 'owner.json'), JSON.stringify(record));
    expect(await acquireRootLock(root, 'reconcile')).toMatchObject({ ok: false, code: 'busy' });
    npm.stdin?.end();
    await once(npm, 'exit');
    const lock = await acquireRootLock(root, 'reconcile');
    expect(lock).toMatchObject({ ok: true, value: { tookOverStale: true, staleOwner: record } });
    if (lock.ok) await lock.value.release();
  });

  it('records the npm children it tracks in owner.json while they run', async () => {
    const root = tempRoot();
    const lock = await acquireRootLock(root, 'install');
    if (!lock.ok) throw new Error('lock failed');
    const child = spawn(process.execPath, ['-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    lock.value.track(child);
    const ownerFile = path.join(root, LOCK_DIR, 'owner.json');
    const children = (): number[] => (JSON.parse(readFileSync(ownerFile, 'utf8')) as { children?: number[] }).children ?? [];
    while (children().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(children()).toEqual([child.pid]);
    child.stdin?.end();
    await once(child, 'exit');
    while (children().length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await lock.value.release();
    expect(existsSync(path.join(root, LOCK_DIR))).toBe(false);
  });
});
