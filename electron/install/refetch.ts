// When the artifact a user consented to is no longer intact on disk, scripts may only run after
// the same bytes are fetched again. A version number is not integrity: a mutable registry can
// serve different bytes for the same version. So before npm restores anything, we fetch each
// tarball from the lockfile's `resolved` URL ourselves and compare its SRI hash with the integrity
// recorded at the first install. Any mismatch stops the operation before a single script runs.
// The tarball is hashed as it streams in, within a byte cap and a deadline (registry-fetch.ts).

import { createHash, type Hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClosureEntry } from '../../shared/protocol/ledger.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import { failurePhrase, streamCapped } from './registry-fetch.ts';
import type { InstallResult } from './install-codes.ts';

export function sriOf(bytes: Uint8Array, algorithm: 'sha512' | 'sha384' | 'sha256' = 'sha512'): string {
  return `${algorithm}-${createHash(algorithm).update(bytes).digest('base64')}`;
}

type SriAlgorithm = 'sha512' | 'sha384' | 'sha256';
const isSriAlgorithm = (name: string): name is SriAlgorithm => name === 'sha512' || name === 'sha384' || name === 'sha256';

/**
 * Hashes bytes as they arrive with every algorithm `expected` (space-separated SRI) names, and
 * sha512 for the message, so a tarball is checked without holding it in memory.
 */
function integrityHasher(expected: string): { update(chunk: Uint8Array): void; result(): { matches: boolean; sri: string } } {
  const items = expected.split(/\s+/).filter(Boolean);
  const hashes = new Map<SriAlgorithm, Hash>([['sha512', createHash('sha512')]]);
  for (const item of items) {
    const algorithm = item.slice(0, item.indexOf('-'));
    if (isSriAlgorithm(algorithm) && !hashes.has(algorithm)) hashes.set(algorithm, createHash(algorithm));
  }
  return {
    update(chunk) {
      for (const hash of hashes.values()) hash.update(chunk);
    },
    result() {
      const sris = new Map([...hashes].map(([algorithm, hash]) => [algorithm, `${algorithm}-${hash.digest('base64')}`]));
      const matches = items.some((item) => {
        const algorithm = item.slice(0, item.indexOf('-'));
        return isSriAlgorithm(algorithm) && sris.get(algorithm) === item;
      });
      return { matches, sri: sris.get('sha512') as string };
    },
  };
}

/** True when one of the hashes in `expected` (space-separated SRI) matches the bytes. */
export function integrityMatches(bytes: Uint8Array, expected: string): boolean {
  const hasher = integrityHasher(expected);
  hasher.update(bytes);
  return hasher.result().matches;
}

/** A tarball bigger than this is not a pack or a dependency npm installed for one; the read stops there. */
export const REFETCH_MAX_BYTES = 256 * 1024 * 1024;
/** npm's own fetch-timeout (5 minutes), for the whole tarball. */
export const REFETCH_TIMEOUT_MS = 300_000;

export interface RefetchLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** The tarball's integrity check, hashed as it is read; a failure when it cannot be read in full. */
async function checkTarball(
  resolved: string,
  root: string,
  expected: string,
  limits: RefetchLimits,
): Promise<InstallResult<{ matches: boolean; sri: string }>> {
  const hasher = integrityHasher(expected);
  if (resolved.startsWith('file:')) {
    try {
      hasher.update(await readFile(path.resolve(root, resolved.slice(5))));
      return ok(hasher.result());
    } catch (error) {
      return fail('install-failed', `The tarball ${resolved} is gone: ${(error as Error).message}`);
    }
  }
  // Tarball hosts redirect to their storage, so redirects are followed (as npm does).
  const got = await streamCapped(resolved, { maxBytes: limits.maxBytes, timeoutMs: limits.timeoutMs, redirect: 'follow' }, (chunk) => hasher.update(chunk));
  if (got.ok) return ok(hasher.result());
  if (got.kind === 'status') return fail('registry-unreachable', `Fetching ${resolved} answered HTTP ${got.status}.`);
  if (got.kind === 'too-large') {
    return fail(
      'invalid-data',
      `Fetching ${resolved} stopped: ${failurePhrase(got)} for a package tarball, so it cannot be the artifact first installed; nothing was run.`,
    );
  }
  return fail('registry-unreachable', `Fetching ${resolved} failed (${failurePhrase(got)}); nothing was run. Check your connection, then try again.`);
}

/** Refetch every entry and check it against its recorded integrity; the first mismatch fails. */
export async function verifyRefetch(
  root: string,
  entries: readonly ClosureEntry[],
  limits: RefetchLimits = { maxBytes: REFETCH_MAX_BYTES, timeoutMs: REFETCH_TIMEOUT_MS },
): Promise<InstallResult<{ verified: string[] }>> {
  const verified: string[] = [];
  for (const entry of entries) {
    if (!entry.resolved || !entry.integrity) {
      return fail(
        'integrity-mismatch',
        `${entry.name}@${entry.version} has no recorded resolved URL and integrity, so it cannot be fetched again safely; nothing was run.`,
      );
    }
    const checked = await checkTarball(entry.resolved, root, entry.integrity, limits);
    if (!checked.ok) return checked;
    if (!checked.value.matches) {
      return fail(
        'integrity-mismatch',
        `The registry served a different artifact for ${entry.name}@${entry.version} than the one first installed (expected ${entry.integrity}, got ${checked.value.sri}); nothing was run and the pack stays inactive.`,
      );
    }
    verified.push(`${entry.name}@${entry.version}`);
  }
  return ok({ verified });
}
