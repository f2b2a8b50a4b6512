// Writing the app's own small files (the install ledger, settings, saved workflows, the install
// journal) so that neither a killed process nor a lost power supply leaves a half-written one: the
// new text goes to a temp file in the same folder, is flushed to the disk, and is renamed over the
// old file; the folder is flushed too, so the rename itself survives a power cut. With `backup`,
// the previous generation (when it is still good) is kept beside the file as `<file>.bak`, so a
// file damaged some other way (a disk error, a hand edit) can be restored from it.
// A full disk surfaces as the ENOSPC error it is; callers map it to `disk-full` with `isDiskFull`.
// The file itself is never touched until the new text is safely on disk.

import { randomBytes } from 'node:crypto';
import { copyFile, link, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const BACKUP_SUFFIX = '.bak';

/** `file.<pid>.<random>.tmp`, in the file's own folder (a rename across folders is not atomic). */
export function tempNameFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Is this name a temp file `writeFileDurably` left for `baseName` (a write that was killed)? */
export function isTempOf(baseName: string, entry: string): boolean {
  return entry.startsWith(`${baseName}.`) && entry.endsWith('.tmp') && entry !== `${baseName}.tmp`;
}

/**
 * The process that wrote temp file `entry` of `baseName` (`tempNameFor` puts its pid in the name),
 * or undefined when the name carries none. A temp file of a process still running may be a write
 * in flight, not a leftover: another process creating the same root's files at the same moment.
 */
export function tempWriterOf(baseName: string, entry: string): number | undefined {
  if (!isTempOf(baseName, entry)) return undefined;
  const match = /\.(\d{1,10})\.[0-9a-f]+\.tmp$/.exec(entry.slice(baseName.length));
  const pid = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** ENOSPC (no space left) or EDQUOT (over quota): the disk, not the data, is the problem. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

async function flushFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flush a folder's entries (the rename). Windows cannot open a folder for this; there NTFS journals the rename itself. */
async function flushFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}

export interface DurableWriteOptions {
  /**
   * Keep the file's current text as `<file>.bak` first — only when this says it is good, so a
   * damaged file never replaces the good backup it would be restored from.
   */
  readonly backup?: (currentText: string) => boolean;
  /** The file's mode, set on the temp file before any text is in it (0o600: owner-only, as secrets need). */
  readonly mode?: number;
}

async function writeTemp(temp: string, text: string, mode?: number): Promise<void> {
  const handle = await open(temp, 'wx', mode);
  try {
    // The umask may narrow the mode open() was given; set it exactly before the text goes in.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Create `file` with `text` unless it exists: the complete text appears at once or not at all
 * (a hard link of a flushed temp file never replaces an existing file). False when it existed.
 */
export async function createFileDurably(file: string, text: string): Promise<boolean> {
  const temp = tempNameFor(file);
  try {
    await writeTemp(temp, text);
    try {
      await link(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A file system without hard links (FAT, some network shares): create it in place instead.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      await writeFile(file, text, { flag: 'wx' });
    }
    await flushFolder(path.dirname(file));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

export async function writeFileDurably(file: string, text: string, options: DurableWriteOptions = {}): Promise<void> {
  const temp = tempNameFor(file);
  const backupTemp = tempNameFor(`${file}${BACKUP_SUFFIX}`);
  try {
    await writeTemp(temp, text, options.mode);
    if (options.backup) {
      let current: string | undefined;
      try {
        current = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      if (current !== undefined && options.backup(current)) {
        await copyFile(file, backupTemp);
        await flushFile(backupTemp);
        await rename(backupTemp, `${file}${BACKUP_SUFFIX}`);
      }
    }
    await rename(temp, file);
    await flushFolder(path.dirname(file));
  } finally {
    await rm(temp, { force: true });
    await rm(backupTemp, { force: true });
  }
}

/**
 * Copy a damaged file to `<file>.damaged-<time>` so that nothing the user had is lost; answers the
 * copy's path. A copy, not a rename: the file stays where it is until its replacement is written,
 * so a process killed in between still finds (the damaged) file and repairs it again.
 */
export async function keepDamagedCopy(file: string): Promise<string> {
  const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await copyFile(file, aside);
  return aside;
}
