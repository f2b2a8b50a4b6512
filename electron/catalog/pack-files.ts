// The only code that reads a pack's files from disk during discovery. Every read is contained:
// the path is already normalized by shared/packs, then resolved with realpath against the pack's
// own real directory, so a symlink that points outside is refused (`file-symlink-escape`) even
// when its name looks innocent. Sizes are checked on the open file descriptor before reading, so
// an oversized file, a FIFO or a device is never read and a file swapped after the check cannot
// smuggle in more bytes than were allowed.

import { constants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { formatBytes } from '../../shared/protocol/limits.ts';
import type { PackFileRead, PackPowers } from '../../shared/packs/pack-loader.ts';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// Opening a FIFO for reading would block until a writer appears; non-blocking open returns at once.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** package.json larger than this is not read at all. */
export const PACKAGE_JSON_MAX_BYTES = 1024 * 1024;

export function isInside(parentReal: string, childReal: string): boolean {
  const rel = path.relative(parentReal, childReal);
  return rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel);
}

/** Read a contained file of a pack. `relPath` must be a normalized pack-relative path. */
export async function readContained(packReal: string, relPath: string, maxBytes: number): Promise<PackFileRead> {
  const joined = path.join(packReal, ...relPath.split('/'));
  let real: string;
  try {
    real = await realpath(joined);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, code: 'file-missing', message: `${relPath} does not exist in the pack.` };
    if (code === 'ELOOP') return { ok: false, code: 'file-symlink-escape', message: `${relPath} is a symbolic link loop.` };
    return { ok: false, code: 'file-missing', message: `${relPath} could not be read (${code ?? 'error'}).` };
  }
  if (!isInside(packReal, real)) {
    return { ok: false, code: 'file-symlink-escape', message: `${relPath} is a symbolic link that points outside the pack.` };
  }
  let handle: FileHandle | undefined;
  try {
    handle = await open(real, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, code: 'file-missing', message: `${relPath} is not a regular file.` };
    if (stat.size > maxBytes) {
      return {
        ok: false,
        code: 'file-too-large',
        size: stat.size,
        message: `${relPath} is ${formatBytes(stat.size)}, over the ${formatBytes(maxBytes)} allowed.`,
      };
    }
    // One byte more than allowed tells a file that grew since fstat from one that did not.
    const buffer = new Uint8Array(stat.size + 1);
    let filled = 0;
    while (filled < buffer.byteLength) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes)
      return { ok: false, code: 'file-too-large', size: filled, message: `${relPath} grew past ${formatBytes(maxBytes)} while it was read.` };
    return { ok: true, bytes: buffer.slice(0, filled) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, code: 'file-symlink-escape', message: `${relPath} changed into a symbolic link while it was read.` };
    return { ok: false, code: 'file-missing', message: `${relPath} could not be read (${code ?? 'error'}).` };
  } finally {
    await handle?.close();
  }
}

/** The read powers discovery hands to shared/packs for one pack directory. */
export function packReadPowers(packReal: string): Pick<PackPowers, 'readFile' | 'readSkill'> {
  return {
    readFile: (relPath, maxBytes) => readContained(packReal, relPath, maxBytes),
    async readSkill(maxBytes) {
      const read = await readContained(packReal, 'SKILL.md', maxBytes);
      if (read.ok) return { size: read.bytes.byteLength, bytes: read.bytes };
      if (read.code === 'file-too-large' && read.size !== undefined) return { size: read.size };
      return undefined;
    },
  };
}
