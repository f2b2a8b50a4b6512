// What the package commands (install, uninstall, update, trust, rebuild, list, search) share:
// their common options and usage lines, one way to print a tagged result, and the reconcile a
// mutating command runs first. Each command stays a few lines: parse argv (args.ts), make the
// contract request, dispatch it (cli-services.ts), print.

import { EXIT, type CliIo, type ExitCode } from './command.ts';
import { createInstaller } from '../install/installer.ts';
import type { Result } from '../../shared/protocol/result.ts';

export const COMMON_USAGE =
  '  --root DIR      install root (default: $SANDBOX_PACKS_ROOT or the app data directory)\n  --registry URL  npm registry (remembered per root)\n  --json          print the result as JSON';

/** Print a result (JSON on stdout, or `text(value)`), failures on stderr; return the exit code. */
export function finish<T>(io: CliIo, json: boolean, result: Result<T>, text: (value: T) => string, toJson?: (value: T) => unknown): ExitCode {
  if (!result.ok) {
    if (json) io.out(JSON.stringify({ ok: false, code: result.code, message: result.message }));
    else io.err(`${result.code}: ${result.message}`);
    // A request the contract refuses was made from argv: bad usage, like an unknown option.
    return result.code === 'usage' || result.code === 'invalid-request' ? EXIT.usage : EXIT.failed;
  }
  if (json) io.out(JSON.stringify({ ok: true, ...(toJson ? (toJson(result.value) as object) : (result.value as object)) }));
  else io.out(text(result.value));
  return EXIT.ok;
}

/**
 * Before a mutating command: fix what an interrupted run left behind, and say so. The app does
 * the same once at start-up (services/app-services.ts); it is not a contract method.
 */
export async function reconcileFirst(root: string, io: CliIo): Promise<void> {
  const report = await createInstaller({ root }).reconcile();
  if (report.ok) for (const line of [...report.value.fixed, ...report.value.missing]) io.err(`[reconcile] ${line}`);
}
