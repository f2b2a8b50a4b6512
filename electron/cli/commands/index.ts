// Every subcommand of `sandbox-packs`, in the order the help lists them.
import type { CliCommand } from '../command.ts';

export const COMMANDS: readonly CliCommand[] = [];
