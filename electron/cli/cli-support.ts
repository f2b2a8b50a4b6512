// What the package commands (install, uninstall, update, trust, rebuild, list, search) share:
// one way to print a tagged result, and the reconcile a
// mutating command runs first. Each command stays a few lines: parse argv (args.ts), make the
// contract request, dispatch it (cli-services.ts), print.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { EXIT, type CliIo, type ExitCode } from './command.ts';
import { createInstaller } from '../install/installer.ts';
import { journalPath } from '../install/journal.ts';
import { readLedger } from '../install/ledger-store.ts';
import { LOCK_DIR } from '../install/root-lock.ts';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import type { Result } from '../../shared/protocol/result.ts';

/**
 * The command that does what a failure's sentence names. The services' sentences fit every face
 * (window, HTTP, MCP), so they name the action, not a command line; the CLI adds its own here.
 */
const CLI_HINTS: Partial<Record<ErrorCode, string>> = {
  'already-installed': 'To change its version: sandbox-packs update NAME [--to VERSION].',
  conflict: 'To replace it: sandbox-packs uninstall NAME, then install the tarball again.',
  'not-updatable': 'sandbox-packs uninstall NAME, then sandbox-packs install FILE.tgz.',
};

/** Print a result (JSON on stdout, or `text(value)`), failures on stderr; return the exit code. */
export function finish<T>(io: CliIo, json: boolean, result: Result<T>, text: (value: T) => string, toJson?: (value: T) => unknown): ExitCode {
  if (!result.ok) {
    if (json) io.out(JSON.stringify({ ok: false, code: result.code, message: result.message }));
    else {
      const hint = CLI_HINTS[result.code];
      io.err(`${result.code}: ${result.message}${hint ? `\n${hint}` : ''}`);
    }
    // A request the contract refuses was made from argv: bad usage, like an unknown option.
    return result.code === 'usage' || result.code === 'invalid-request' ? EXIT.usage : EXIT.failed;
  }
  if (json) io.out(JSON.stringify({ ok: true, ...(toJson ? (toJson(result.value) as object) : (result.value as object)) }));
  else io.out(text(result.value));
  return EXIT.ok;
}

/**
 * Before a mutating command: fix what an interrupted run left behind (a stale lock, a damaged
 * ledger, an operation killed half-way), and say so. The app does the same once at start-up
 * (services/app-services.ts); it is not a contract method. While another operation holds the
 * root this does nothing: the command waits for the lock, and its lock holder repairs then.
 */
export async function reconcileFirst(root: string, io: CliIo): Promise<void> {
  const report = await createInstaller({ root }).reconcile();
  if (report.ok) for (const line of [...report.value.fixed, ...report.value.missing]) io.err(`[reconcile] ${line}`);
  else if (report.code !== 'busy') io.err(`[reconcile] ${report.code}: ${report.message}`);
}

/**
 * Before a read-only command (list, discover): repair only when the root needs it to be answered
 * truthfully — a damaged ledger, an operation that was interrupted (its journal), or a lock a dead
 * process left — and say what was repaired. A healthy root is only read.
 */
export async function repairIfNeeded(root: string, io: CliIo): Promise<void> {
  const ledger = await readLedger(root);
  const damaged = !ledger.ok && ledger.code === 'invalid-data';
  if (damaged || existsSync(journalPath(root)) || existsSync(path.join(root, LOCK_DIR))) await reconcileFirst(root, io);
}
