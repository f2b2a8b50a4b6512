// Entry of the `sandbox-packs` CLI: finds the subcommand, runs it, and turns usage mistakes
// into exit code 2 with the command's usage. The commands themselves are thin: argv through one
// parser (args.ts), a contract request through the same dispatcher the app and the web host use
// (cli-services.ts), the tagged result printed.

import { displayText } from '../../shared/protocol/display-text.ts';
import { runtimeVersions, versionLines } from '../platform/app-runtime.ts';
import { COMMANDS } from './commands/index.ts';
import { EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from './command.ts';

/**
 * What the CLI prints for an error nothing expected (a bug): one sentence, no stack trace, unless
 * SANDBOX_PACKS_DEBUG is set. Expected failures never get here: they are tagged results.
 */
export function unexpectedErrorText(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = `sandbox-packs stopped on an unexpected error: ${message}. This is a bug in sandbox-packs; please report it with the command you ran (set SANDBOX_PACKS_DEBUG=1 to see where it happened).`;
  return env.SANDBOX_PACKS_DEBUG && error instanceof Error && error.stack ? `${text}\n${error.stack}` : text;
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 8);
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: sandbox-packs <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run `sandbox-packs <command> --help` for a command's options; `sandbox-packs --version` shows the npm and runtime in use.",
    "The install root defaults to the app's data directory; set SANDBOX_PACKS_ROOT or pass --root to change it.",
  ].join('\n');
}

export async function main(argv: readonly string[], io?: Partial<CliIo>, commands: readonly CliCommand[] = COMMANDS): Promise<ExitCode> {
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
  if (name === '--version' || name === '-V' || name === 'version') {
    const versions = runtimeVersions();
    cliIo.out(rest.includes('--json') ? JSON.stringify(versions) : versionLines(versions).join('\n'));
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
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
    cliIo.err(unexpectedErrorText(error, cliIo.env));
    return EXIT.failed;
  }
}

/**
 * The process entry (the staged cli.mjs and the dev scripts/sandbox-packs.mjs): main's exit code,
 * and an error that escapes every await (an 'error' event nobody listened for) ends the process
 * with the same one sentence instead of Node's stack trace.
 */
export async function runAsProcess(argv: readonly string[]): Promise<void> {
  const crash = (error: unknown): void => {
    process.stderr.write(`${unexpectedErrorText(error)}\n`);
    process.exit(EXIT.failed);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  process.exitCode = await main(argv);
}
