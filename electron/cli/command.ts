// What a CLI subcommand looks like. Each command lives in its own file under commands/ and is
// listed once in commands/index.ts; main.ts only dispatches and maps outcomes to exit codes.

import type { OptionDecls } from './args.ts';

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** Exit codes: 0 ok, 1 the operation failed for an expected reason, 2 bad usage or unreadable input. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface CliCommand {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The options it takes: what its parser accepts and its usage lists (usage.ts). */
  readonly options: OptionDecls;
  /** Full usage text for `sandbox-packs <name> --help`, generated from `options`. */
  readonly usage: string;
  run(args: readonly string[], io: CliIo): Promise<ExitCode>;
}

/** Thrown by argument parsing; main prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
