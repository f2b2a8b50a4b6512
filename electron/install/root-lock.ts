// One mutating operation per install root at a time. Two npm processes writing one node_modules
// and one lockfile corrupt both, so install, update, uninstall, trust, rebuild and reconcile take
// this lock. It is a directory (mkdir is atomic) holding the owner's pid, host, start time and the
// pids of the npm processes it started, so a lock left by a killed process is recognised as stale
// (its pid and every npm it started are gone) and taken over instead of blocking the root forever
// — but never while an npm it started still runs: an app that is force-quit leaves its npm child
// writing the tree, and the next owner waits for that npm to end. Callers that find a live owner
// get `busy` at once, or after `waitMs` if they asked to wait (told once through `onWait`).

import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { fail, ok } from '../../shared/protocol/result.ts';
import type { InstallResult } from './install-codes.ts';

export const LOCK_DIR = '.sandbox-packs.lock';

const OwnerSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  startedAt: z.string(),
  operation: z.string(),
  /** npm processes the owner started that may still be running. */
  children: z.array(z.number().int().positive()).optional(),
});
export type LockOwner = z.infer<typeof OwnerSchema>;

export interface RootLock {
  /** True when the lock replaced a stale one left by a dead process. */
  readonly tookOverStale: boolean;
  /** The stale lock's owner, when it was readable: whose interrupted operation the new owner finds. */
  readonly staleOwner?: LockOwner;
  /** Record a child process (npm) in the lock until it exits, so the lock outlives a killed owner while the child runs. */
  track(child: ChildProcess): void;
  release(): Promise<void>;
}

export interface LockWait {
  /** Called once, when the lock is found held by a live owner and the caller is going to wait. */
  readonly onWait?: (owner: LockOwner | undefined) => void;
}

/** A wait for a sentence: "60 s", or "300 ms" under a second. */
export function waitText(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** Who holds it, for a sentence: "(install, process 123, since …)". */
export function ownerText(owner: LockOwner | undefined): string {
  return owner ? `${owner.operation}, process ${owner.pid}, since ${owner.startedAt}` : 'an operation that is just starting';
}

/** Is process `pid` running (a zombie is not)? */
export async function pidAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (exited, not yet reaped by its new parent) still answers signal 0.
  if (process.platform !== 'linux') return true;
  try {
    const statLine = await readFile(`/proc/${pid}/stat`, 'utf8');
    return statLine.slice(statLine.lastIndexOf(')') + 2, statLine.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function readOwner(lockDir: string): Promise<LockOwner | undefined> {
  try {
    const parsed = OwnerSchema.safeParse(JSON.parse(await readFile(path.join(lockDir, 'owner.json'), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A lock whose owner and every npm it started are gone (on this host), or unreadable and older than a few seconds. */
async function isStale(lockDir: string, owner: LockOwner | undefined): Promise<boolean> {
  if (!owner) {
    // The owner may be between mkdir and writing owner.json; give it a moment before judging.
    try {
      const { mtimeMs } = await stat(lockDir);
      return Date.now() - mtimeMs > 5000;
    } catch {
      return true;
    }
  }
  if (owner.host !== os.hostname()) return false;
  for (const pid of [owner.pid, ...(owner.children ?? [])]) if (await pidAlive(pid)) return false;
  return true;
}

async function writeOwner(lockDir: string, owner: LockOwner): Promise<void> {
  // Replaced by rename, so a reader never sees half of it.
  const temp = path.join(lockDir, `owner.${process.pid}.tmp`);
  await writeFile(temp, JSON.stringify(owner));
  await rename(temp, path.join(lockDir, 'owner.json'));
}

export async function acquireRootLock(root: string, operation: string, waitMs = 0, wait: LockWait = {}): Promise<InstallResult<RootLock>> {
  const lockDir = path.join(root, LOCK_DIR);
  const deadline = Date.now() + waitMs;
  let tookOverStale = false;
  let staleOwner: LockOwner | undefined;
  let toldWaiting = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      const owner: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), operation };
      await writeOwner(lockDir, owner);
      const children = new Set<number>();
      let updates: Promise<void> = Promise.resolve();
      // Best effort: a lock that cannot record its child (a full disk) still guards the live owner.
      const update = (): void => {
        updates = updates.then(() => writeOwner(lockDir, { ...owner, children: [...children] }).catch(() => {}));
      };
      let released = false;
      return ok({
        tookOverStale,
        ...(staleOwner ? { staleOwner } : {}),
        track(child) {
          if (child.pid === undefined || released) return;
          const pid = child.pid;
          children.add(pid);
          update();
          child.once('exit', () => {
            children.delete(pid);
            if (!released) update();
          });
        },
        async release() {
          if (released) return;
          released = true;
          await updates;
          await rm(lockDir, { recursive: true, force: true });
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(lockDir);
    if (await isStale(lockDir, owner)) {
      await rm(lockDir, { recursive: true, force: true });
      tookOverStale = true;
      staleOwner = owner ?? staleOwner;
      continue;
    }
    if (Date.now() >= deadline) {
      const waited = waitMs > 0 ? ` after waiting ${waitText(waitMs)}` : '';
      return fail('busy', `Another operation (${ownerText(owner)}) is still running on the install root ${root}${waited}; try again when it has finished.`);
    }
    if (!toldWaiting) {
      toldWaiting = true;
      wait.onWait?.(owner);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
