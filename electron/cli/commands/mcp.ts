// `sandbox-packs mcp`: the sandbox as an MCP server on stdio, for agents (desktop assistants, IDE
// agents, agent frameworks). It serves the same services through the same contract dispatcher as
// the app and the web host. The user — never the model — decides what a session gets: which
// specifiers (`--allow`, else the app's saved allowlist, else the modules of packs trusted for agents) and
// which hosts runs may fetch from (`--fetch`; nothing by default).
//
// stdout is the protocol channel while the server runs: everything else goes to stderr, console
// output of the process included. The server stops when the client closes stdin, or on
// SIGINT/SIGTERM, and then closes every worker it started.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CodeRunRequestSchema } from '../../../shared/contract/code-methods.ts';
import { SpecifierSchema } from '../../../shared/protocol/declaration.ts';
import { formatIssues } from '../../../shared/protocol/parse.ts';
import { reportFirstRun, seedDataDir } from '../../first-run/index.ts';
import { createMcpFace } from '../../mcp/mcp-server.ts';
import { createAppServices } from '../../services/app-services.ts';
import { EXIT, UsageError, type CliCommand, type CliIo } from '../command.ts';
import { parseCliArgs, rootOf } from '../args.ts';
import { usageText } from '../usage.ts';

const SERVER_VERSION = '0.1.0';

const OPTIONS = {
  root: { kind: 'string', value: 'DIR', help: 'data directory / install root (default: the app data directory, or SANDBOX_PACKS_ROOT)' },
  allow: {
    kind: 'strings',
    value: 'SPEC',
    help: 'a module specifier this session may import (repeatable). Without it the session\nallowlist saved in the app is used, and when none is saved, the modules of packs\nyou trusted.',
  },
  fetch: {
    kind: 'strings',
    value: 'HOST',
    help: 'let every run fetch from HOST, or *.domain for its subdomains (repeatable;\ndefault: no network). Private and loopback addresses stay refused.',
  },
} as const;

const USAGE = usageText({
  synopsis: 'mcp',
  about: [
    'Serves the sandbox to an agent over the Model Context Protocol on stdin/stdout. Tools:',
    "list_sandbox_modules, read_pack_skill, run_code, validate_code; each allowed pack's SKILL.md",
    'is also a resource. Logs go to stderr.',
  ],
  options: OPTIONS,
});

export interface McpArgs {
  readonly root?: string;
  readonly allow?: readonly string[];
  readonly fetchHosts: readonly string[];
}

export function parseMcpArgs(args: readonly string[]): McpArgs {
  const { values } = parseCliArgs(args, OPTIONS, { positionals: false });
  for (const spec of values.allow) {
    const parsed = SpecifierSchema.safeParse(spec);
    if (!parsed.success || spec.trim() !== spec)
      throw new UsageError(`--allow ${JSON.stringify(spec)}: give a module specifier such as @acme/geo or @acme/geo/simplify-wasm.`);
  }
  const hosts = values.fetch.map((h) => h.toLowerCase());
  const checked = CodeRunRequestSchema.shape.fetchHosts.safeParse(hosts);
  if (!checked.success) throw new UsageError(`--fetch: ${formatIssues(checked.error.issues)}`);
  return {
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(values.allow.length > 0 ? { allow: [...new Set(values.allow)] } : {}),
    fetchHosts: [...new Set(hosts)],
  };
}

/**
 * While the server runs, console.log and friends write to stderr: a stray log line from any part
 * of the process on stdout would corrupt the protocol stream. Returns the restore function.
 */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Resolves when the session ends: the client closed stdin or the transport, or a signal came. */
function sessionEnd(onClose: (listener: () => void) => void): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string) => () => resolve(why);
    process.stdin.once('end', done('stdin closed'));
    process.stdin.once('close', done('stdin closed'));
    // A client that went away makes stdout writes fail (EPIPE): the session is over.
    process.stdout.once('error', done('stdout closed'));
    process.once('SIGINT', done('SIGINT'));
    process.once('SIGTERM', done('SIGTERM'));
    onClose(done('transport closed'));
  });
}

export const mcp: CliCommand = {
  name: 'mcp',
  summary: 'Serve the sandbox to an agent over MCP on stdio',
  options: OPTIONS,
  usage: USAGE,
  async run(argv, io: CliIo) {
    const args = parseMcpArgs(argv);
    const dataDir = rootOf(args.root, io);
    const restoreConsole = consoleToStderr();
    try {
      // Like `serve`: the app's own data directory is seeded on first start (progress to stderr).
      if (args.root === undefined) await reportFirstRun(await seedDataDir(dataDir, { onProgress: (m) => io.err(m) }), io.err);
      const onBug = (where: string, error: unknown) => io.err(`bug in ${where}: ${describeError(error)}`);
      const services = await createAppServices({ dataDir, onBug });
      if (!services.ok) {
        io.err(`${services.code}: ${services.message}`);
        return EXIT.failed;
      }
      try {
        const server = createMcpFace({
          dispatcher: services.value.dispatcher,
          ...(args.allow ? { allow: args.allow } : {}),
          fetchHosts: args.fetchHosts,
          version: SERVER_VERSION,
          onBug,
        });
        server.onerror = (error) => io.err(`mcp: ${error.message}`);
        const ended = sessionEnd((listener) => (server.onclose = listener));
        await server.connect(new StdioServerTransport());
        const allowFrom = args.allow ? `${args.allow.length} specifier(s) from --allow` : "the app's session allowlist (default: packs trusted for agents)";
        io.err(
          `sandbox-packs MCP server on stdio: ${dataDir}; modules from ${allowFrom}; fetch ${args.fetchHosts.length ? args.fetchHosts.join(', ') : 'off'}.`,
        );
        const why = await ended;
        await server.close();
        io.err(`sandbox-packs MCP server stopped (${why}).`);
      } finally {
        await services.value.dispose();
      }
      return EXIT.ok;
    } finally {
      restoreConsole();
    }
  },
};
