// When the artifact a user consented to is no longer intact on disk, scripts may only run after
// the same bytes are fetched again. A version number is not integrity: a mutable registry can
// serve different bytes for the same version. So before npm restores anything, we fetch each
// tarball from the lockfile's `resolved` URL ourselves and compare its SRI hash with the integrity
// recorded at the first install. Any mismatch stops the operation before a single script runs.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClosureEntry } from '../../shared/protocol/ledger.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';

export function sriOf(bytes: Uint8Array, algorithm: 'sha512' | 'sha384' | 'sha256' = 'sha512'): string {
  return `${algorithm}-${createHash(algorithm).update(bytes).digest('base64')}`;
}

/** True when one of the hashes in `expected` (space-separated SRI) matches the bytes. */
export function integrityMatches(bytes: Uint8Array, expected: string): boolean {
  return expected
    .split(/\s+/)
    .filter(Boolean)
    .some((item) => {
      const algorithm = item.slice(0, item.indexOf('-'));
      if (algorithm !== 'sha512' && algorithm !== 'sha384' && algorithm !== 'sha256') return false;
      return sriOf(bytes, algorithm) === item;
    });
}

async function fetchBytes(resolved: string, root: string): Promise<Result<Uint8Array>> {
  if (resolved.startsWith('file:')) {
    try {
      return ok(new Uint8Array(await readFile(path.resolve(root, resolved.slice(5)))));
    } catch (error) {
      return fail('install-failed', `The tarball ${resolved} is gone: ${(error as Error).message}`);
    }
  }
  try {
    const response = await fetch(resolved, { redirect: 'follow' });
    if (!response.ok) return fail('registry-unreachable', `Fetching ${resolved} answered HTTP ${response.status}.`);
    return ok(new Uint8Array(await response.arrayBuffer()));
  } catch (error) {
    return fail('registry-unreachable', `Fetching ${resolved} failed: ${(error as Error).message}`);
  }
}

/** Refetch every entry and check it against its recorded integrity; the first mismatch fails. */
export async function verifyRefetch(root: string, entries: readonly ClosureEntry[]): Promise<Result<{ verified: string[] }>> {
  const verified: string[] = [];
  for (const entry of entries) {
    if (!entry.resolved || !entry.integrity) {
      return fail(
        'integrity-mismatch',
        `${entry.name}@${entry.version} has no recorded resolved URL and integrity, so it cannot be fetched again safely; nothing was run.`,
      );
    }
    const bytes = await fetchBytes(entry.resolved, root);
    if (!bytes.ok) return bytes;
    if (!integrityMatches(bytes.value, entry.integrity)) {
      return fail(
        'integrity-mismatch',
        `The registry served a different artifact for ${entry.name}@${entry.version} than the one first installed (expected ${entry.integrity}, got ${sriOf(bytes.value)}); nothing was run and the pack stays inactive.`,
      );
    }
    verified.push(`${entry.name}@${entry.version}`);
  }
  return ok({ verified });
}
