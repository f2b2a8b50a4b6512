// What a warm cache hit must re-check besides the content of the bundled files. Re-hashing the
// files esbuild read proves they did not change, but resolution can change without touching them:
// a nearer copy of a dependency can appear (npm nesting a different version under a pack), or a
// package.json can redirect `exports`/`browser` to other files. So for every bare import in the
// graph we record the node_modules directories that Node-style lookup tried before the one it
// used — they must still not exist — and we add each used package's package.json to the hashed
// inputs. Both checks are stat/read-only; nothing is bundled. Where resolution went through a
// symbolic link (a linked workspace) the chain cannot be replayed, and the caller falls back to
// the root's lockfile as the guard.

import path from 'node:path';
import type * as esbuild from 'esbuild';

export interface ResolutionGuard {
  /** Root-relative POSIX paths that lookup passed over; a hit is valid only while they are absent. */
  readonly absent: string[];
  /** package.json files (root-relative) of every package the bundle used. */
  readonly manifests: string[];
  /** False when some import resolved somewhere its lookup chain cannot explain (symlinks). */
  readonly replayable: boolean;
}

function isBare(request: string): boolean {
  return !request.startsWith('.') && !request.startsWith('/') && !/^[A-Za-z]:/.test(request) && !request.includes(':');
}

function packageName(request: string): string {
  const parts = request.split('/');
  return request.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? request);
}

export function resolutionGuard(metafile: esbuild.Metafile): ResolutionGuard {
  const absent = new Set<string>();
  const manifests = new Set<string>();
  let replayable = true;
  for (const [importer, input] of Object.entries(metafile.inputs)) {
    const fromDir = path.posix.dirname(importer);
    for (const imp of input.imports) {
      const request = imp.original;
      if (request === undefined || !isBare(request) || imp.external) continue;
      const name = packageName(request);
      let found: string | undefined;
      const passed: string[] = [];
      // Walk up from the importer's directory exactly as Node does, stopping at the root ('.').
      for (let dir = fromDir; ; dir = path.posix.dirname(dir)) {
        if (path.posix.basename(dir) !== 'node_modules') {
          const candidate = dir === '.' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
          if (imp.path === candidate || imp.path.startsWith(`${candidate}/`)) {
            found = candidate;
            break;
          }
          passed.push(candidate);
        }
        if (dir === '.' || dir === '' || dir === '/') break;
      }
      if (found === undefined) {
        replayable = false;
        continue;
      }
      for (const p of passed) absent.add(p);
      manifests.add(`${found}/package.json`);
    }
  }
  return { absent: [...absent].sort(), manifests: [...manifests].sort(), replayable };
}
