// The `workspace` capability on the host side: read, write and list files under the one directory
// granted to the node. Containment is checked on real paths (symlinks resolved), so neither "..",
// an absolute path nor a symlink planted inside the workspace can reach anything outside it.
// Only regular files are read or written: opening a named pipe or a device blocks a libuv thread
// until someone else opens the other end, which would leave the operation pending past its run.
// Reads and writes also take the run's abort signal.

import fs from 'node:fs/promises';
import path from 'node:path';
import type { HostCallResult } from '../../../shared/protocol/run.ts';

export interface WorkspaceGrant {
  /** The directory the node may use; it must exist. */
  readonly dir: string;
  /** Largest file the guest may read or write (default 8 MB). */
  readonly maxFileBytes?: number;
}

const denied = (p: string): HostCallResult => ({
  ok: false,
  code: 'capability-denied',
  message: `workspace: ${JSON.stringify(p)} is outside this node's workspace directory.`,
});
const failed = (p: string, error: unknown): HostCallResult => ({
  ok: false,
  code: 'workspace-failed',
  message: `workspace: ${JSON.stringify(p)}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : error instanceof Error ? error.message : String(error)}.`,
});

const notFile = (p: string): HostCallResult => ({ ok: false, code: 'workspace-failed', message: `workspace: ${JSON.stringify(p)} is not a regular file.` });

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export class WorkspaceCapability {
  private root: Promise<string>;
  constructor(private readonly grant: WorkspaceGrant) {
    this.root = fs.realpath(grant.dir);
  }

  async call(name: string, args: readonly unknown[], signal?: AbortSignal): Promise<HostCallResult> {
    const [relative, data] = args;
    if (typeof relative !== 'string' || relative.length > 4096 || relative.includes('\0')) {
      return { ok: false, code: 'invalid-data', message: 'workspace: the path must be a string.' };
    }
    if (path.isAbsolute(relative) || path.win32.isAbsolute(relative)) return denied(relative);
    let root: string;
    try {
      root = await this.root;
    } catch (error) {
      return failed(this.grant.dir, error);
    }
    const target = path.resolve(root, relative);
    if (!inside(root, target)) return denied(relative);
    const maxBytes = this.grant.maxFileBytes ?? 8 * 1024 * 1024;
    try {
      if (name === 'workspace.read') {
        const real = await fs.realpath(target);
        if (!inside(root, real)) return denied(relative);
        const stat = await fs.stat(real);
        if (!stat.isFile()) return notFile(relative);
        if (stat.size > maxBytes)
          return { ok: false, code: 'workspace-failed', message: `workspace: ${JSON.stringify(relative)} is larger than ${maxBytes} bytes.` };
        const bytes = await fs.readFile(real, signal ? { signal } : {});
        return { ok: true, value: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      }
      if (name === 'workspace.write') {
        if (!(data instanceof Uint8Array)) return { ok: false, code: 'invalid-data', message: 'workspace: write takes text or bytes.' };
        if (data.byteLength > maxBytes) return { ok: false, code: 'workspace-failed', message: `workspace: refusing to write more than ${maxBytes} bytes.` };
        const parent = await fs.realpath(path.dirname(target));
        if (!inside(root, parent)) return denied(relative);
        const final = path.join(parent, path.basename(target));
        const existing = await fs.lstat(final).catch(() => undefined);
        if (existing?.isSymbolicLink()) return denied(relative);
        if (existing && !existing.isFile()) return notFile(relative);
        await fs.writeFile(final, data, signal ? { signal } : {});
        return { ok: true, value: null };
      }
      if (name === 'workspace.list') {
        const real = await fs.realpath(target);
        if (!inside(root, real)) return denied(relative);
        const entries = await fs.readdir(real, { withFileTypes: true });
        return {
          ok: true,
          value: entries
            .map((e) => ({ name: e.name, kind: e.isFile() ? 'file' : e.isDirectory() ? 'directory' : 'other' }))
            .sort((a, b) => a.name.localeCompare(b.name)),
        };
      }
    } catch (error) {
      return failed(relative, error);
    }
    return { ok: false, code: 'invalid-data', message: `workspace: unknown operation ${name}.` };
  }
}
