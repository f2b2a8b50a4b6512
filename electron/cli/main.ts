// Entry of the `sandbox-packs` CLI: finds the subcommand, runs it, and turns usage mistakes
// into exit code 2 with the command's usage. The commands themselves are thin callers of the
// same services the app and the web host use.

import { displayText } from '../../shared/protocol/display-text.ts';
import { COMMANDS } from './commands/index.ts';
import { EXIT, UsageError, type CliIo, type ExitCode } from './command.ts';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 8);
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: sandbox-packs <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `sandbox-packs <command> --help` for a command\'s options.',
    'The install root defaults to the app\'s data directory; set SANDBOX_PACKS_ROOT or pass --root to change it.',
  ].join('\n');
}

export async function main(argv: readonly string[], io?: Partial<CliIo>): Promise<ExitCode> {
  const out = io?.out ?? ((text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`));
  const err = io?.err ?? ((text: string) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`));
  // Everything a command prints may carry pack text (names, reasons, script commands, log lines):
  // hidden and control characters are shown as \uXXXX on the way out (JSON stays valid JSON).
  const cliIo: CliIo = {
    out: (text) => out(displayText(text, { multiline: true })),
    err: (text) => err(displayText(text, { multiline: true })),
    env: io?.env ?? process.env,
    cwd: io?.cwd ?? process.cwd(),
  };
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    cliIo.out(help());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    cliIo.err(`Unknown command "${name}".\n\n${help()}`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    cliIo.out(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, cliIo);
  } catch (error) {
    if (error instanceof UsageError) {
      cliIo.err(`${error.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    throw error;
  }
}
