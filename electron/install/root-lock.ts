// One mutating operation per install root at a time. Two npm processes writing one node_modules
// and one lockfile corrupt both, so install, update, uninstall, trust and rebuild take this lock.
// It is a directory (mkdir is atomic) holding the owner's pid, host and start time, so a lock left
// by a killed process is recognised as stale (its pid is gone) and taken over instead of blocking
// the root forever. Callers that find a live owner get `busy` at once, or after `waitMs` if they
// asked to wait; the CLI does not wait, a UI may.

import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';

export const LOCK_DIR = '.sandbox-packs.lock';

const OwnerSchema = z.object({ pid: z.number().int().positive(), host: z.string(), startedAt: z.string(), operation: z.string() });
type Owner = z.infer<typeof OwnerSchema>;

export interface RootLock {
  /** True when the lock replaced a stale one left by a dead process. */
  readonly tookOverStale: boolean;
  release(): Promise<void>;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(lockDir: string): Promise<Owner | undefined> {
  try {
    const parsed = OwnerSchema.safeParse(JSON.parse(await readFile(path.join(lockDir, 'owner.json'), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A lock whose owner is gone (dead pid on this host), or unreadable and older than a few seconds. */
async function isStale(lockDir: string): Promise<boolean> {
  const owner = await readOwner(lockDir);
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
  return !pidAlive(owner.pid);
}

export async function acquireRootLock(root: string, operation: string, waitMs = 0): Promise<Result<RootLock>> {
  const lockDir = path.join(root, LOCK_DIR);
  const deadline = Date.now() + waitMs;
  let tookOverStale = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      const owner: Owner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), operation };
      await writeFile(path.join(lockDir, 'owner.json'), JSON.stringify(owner));
      let released = false;
      return ok({
        tookOverStale,
        async release() {
          if (released) return;
          released = true;
          await rm(lockDir, { recursive: true, force: true });
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await isStale(lockDir)) {
      await rm(lockDir, { recursive: true, force: true });
      tookOverStale = true;
      continue;
    }
    if (Date.now() >= deadline) {
      const owner = await readOwner(lockDir);
      const who = owner ? ` (${owner.operation}, process ${owner.pid}, since ${owner.startedAt})` : '';
      return fail('busy', `Another operation is running on the install root ${root}${who}; try again when it has finished.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
