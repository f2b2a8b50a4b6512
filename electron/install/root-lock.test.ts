import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
});
