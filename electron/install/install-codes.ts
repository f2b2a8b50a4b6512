// What an installer call may answer when it fails: a closed subset of the protocol's codes
// (shared/protocol/codes.ts), each meaning one thing on every face. Its own file so that every
// step of the installer (inspect, npm, lock, ledger, trust) is typed with it without cycles: a
// step that could answer a code outside the subset does not compile.

import type { ErrorCode } from '../../shared/protocol/codes.ts';
import type { Failure, Result } from '../../shared/protocol/result.ts';

export const INSTALL_CODES = [
  // the spec, the request
  'spec-unsupported',
  'not-installed',
  'already-installed',
  'conflict',
  'not-updatable',
  'pack-changed',
  // what npm and the registry answered
  'install-failed',
  'not-found',
  'registry-unreachable',
  'integrity-mismatch',
  'npm-unavailable',
  // what the installed package is
  'not-a-pack',
  'package-json-invalid',
  'manifest-invalid',
  // consent and scripts
  'trust-required',
  'rebuild-failed',
  // the root
  'busy',
  'root-unreadable',
  'invalid-data',
  'disk-full',
  'install-cancelled',
] as const satisfies readonly ErrorCode[];
export type InstallCode = (typeof INSTALL_CODES)[number];
export type InstallResult<T> = Result<T, InstallCode>;
export type InstallFailure = Failure<InstallCode>;
