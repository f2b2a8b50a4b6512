// `sandbox-packs run FILE`: run Code-node code headlessly through the same catalog, code runner,
// sandbox pool and WASM dispatcher the app uses, so a failing import or a denial reproduces
// exactly. With --codeact the declaration is not given: the code's imports are parsed and
// mounted only if each is on the session allowlist (--session-allow; default: trusted packs).
//
// Secrets: `--secret NAME` grants the secret NAME and takes its value from the environment
// variable of the same name (a granted secret whose variable is unset answers "secret-not-set").
// Exit codes: 0 ok, 1 guest error or denial, 2 bad usage or unreadable input.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { SandboxModuleDeclarationSchema, type SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { IDENTIFIER_PATTERN, type RunResult } from '../../../shared/protocol/run.ts';
import { formatIssues } from '../../../shared/protocol/parse.ts';
import { codeActDeclarations } from '../../../shared/sandbox/codeact.ts';
import type { HostGrants } from '../../runtime/sandbox/host-capabilities.ts';
import { createCodeRunner } from '../../services/code-runner.ts';
import { openRootCatalog, resolveRoot, trustedSpecifiers } from '../../validation/root-catalog.ts';
import { EXIT, UsageError, type CliCommand, type CliIo } from '../command.ts';

const USAGE = [
  'Usage: sandbox-packs run FILE [--root DIR] [--package SPEC]... [--input NAME=JSON]...',
  '                          [--allow-fetch HOST]... [--workspace DIR] [--secret NAME]... [--timeout MS] [--json]',
  '       sandbox-packs run FILE --codeact [--session-allow SPEC]... [same grant options]',
  '',
  'Runs Code-node code in the sandbox with the declared packages of an install root.',
  '',
  'Options:',
  '  --root DIR           install root (default: the app data directory, or SANDBOX_PACKS_ROOT)',
  '  --package SPEC       declare a package: specifier[@version][#digest] (repeatable)',
  '  --input NAME=JSON    bind a global NAME to a JSON value (repeatable)',
  '  --allow-fetch HOST   grant fetch to HOST, or *.domain for its subdomains (repeatable)',
  '  --workspace DIR      grant read/write/list under DIR',
  '  --secret NAME        grant getSecret(NAME); the value comes from the environment variable NAME',
  `  --timeout MS         deadline in ms (default and maximum ${LIMITS.guestTimeoutMs})`,
  '  --codeact            CodeAct step: mount the imports the code makes, if the session allows them',
  '  --session-allow SPEC a specifier this CodeAct session may mount (repeatable; default: trusted packs)',
  '  --json               print { ok, value, logs, receipt } or { ok, code, message, logs }',
  '',
  'Exit status: 0 ok, 1 the code failed or was denied, 2 bad usage.',
].join('\n');

/** `specifier[@version][#digest]`; the version `@` is the last one after the first character. */
export function parseSpec(spec: string): SandboxModuleDeclaration {
  let rest = spec;
  let contentDigest: string | undefined;
  const hash = rest.lastIndexOf('#');
  if (hash >= 0) {
    contentDigest = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let resolvedPackVersion: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at > 0) {
    resolvedPackVersion = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const parsed = SandboxModuleDeclarationSchema.safeParse({
    specifier: rest,
    ...(resolvedPackVersion !== undefined ? { resolvedPackVersion } : {}),
    ...(contentDigest !== undefined ? { contentDigest } : {}),
  });
  if (!parsed.success) throw new UsageError(`--package ${JSON.stringify(spec)}: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

interface RunArgs {
  file: string;
  root: string | undefined;
  packages: SandboxModuleDeclaration[];
  inputs: Record<string, unknown>;
  hosts: string[];
  workspace: string | undefined;
  secrets: string[];
  timeoutMs: number;
  json: boolean;
  codeact: boolean;
  sessionAllow: string[];
}

function parseArgs(args: readonly string[]): RunArgs {
  const out: RunArgs = { file: '', root: undefined, packages: [], inputs: {}, hosts: [], workspace: undefined, secrets: [], timeoutMs: LIMITS.guestTimeoutMs, json: false, codeact: false, sessionAllow: [] };
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value.`);
      return v;
    };
    switch (flag) {
      case '--json': out.json = true; break;
      case '--codeact': out.codeact = true; break;
      case '--root': out.root = value(); break;
      case '--package': out.packages.push(parseSpec(value())); break;
      case '--allow-fetch': out.hosts.push(value().toLowerCase()); break;
      case '--workspace': out.workspace = value(); break;
      case '--secret': out.secrets.push(value()); break;
      case '--session-allow': out.sessionAllow.push(parseSpec(value()).specifier); break;
      case '--timeout': {
        const ms = Number(value());
        if (!Number.isInteger(ms) || ms < 1 || ms > LIMITS.guestTimeoutMs) throw new UsageError(`--timeout must be a whole number of ms from 1 to ${LIMITS.guestTimeoutMs}.`);
        out.timeoutMs = ms;
        break;
      }
      case '--input': {
        const raw = value();
        const eq = raw.indexOf('=');
        const name = eq > 0 ? raw.slice(0, eq) : '';
        if (!IDENTIFIER_PATTERN.test(name)) throw new UsageError(`--input ${JSON.stringify(raw)}: expected NAME=JSON with NAME a JavaScript identifier.`);
        try {
          out.inputs[name] = JSON.parse(raw.slice(eq + 1)) as unknown;
        } catch {
          throw new UsageError(`--input ${name}: the value is not valid JSON.`);
        }
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`Unknown option "${arg}".`);
        files.push(arg);
    }
  }
  if (files.length !== 1) throw new UsageError(files.length ? 'Give exactly one FILE.' : 'Give the FILE with the code to run.');
  out.file = files[0] as string;
  for (const secret of out.secrets) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secret)) throw new UsageError(`--secret ${JSON.stringify(secret)}: a secret name is an environment variable name.`);
  if (out.codeact && out.packages.length) throw new UsageError('--codeact takes its packages from the code\'s imports; do not pass --package.');
  if (!out.codeact && out.sessionAllow.length) throw new UsageError('--session-allow only applies with --codeact.');
  return out;
}

function print(io: CliIo, json: boolean, result: RunResult): void {
  if (json) {
    io.out(JSON.stringify(result.ok ? { ok: true, value: result.value, logs: result.logs, receipt: result.receipt } : { ok: false, code: result.code, message: result.message, logs: result.logs }, null, 2));
    return;
  }
  for (const log of result.logs) io.err(`[${log.level}] ${log.text}`);
  if (result.ok) io.out(JSON.stringify(result.value, null, 2) ?? 'undefined');
  else {
    io.err(`error (${result.code}): ${result.message}`);
    for (const d of result.receipt.denied) io.err(`  denied ${d.kind} ${JSON.stringify(d.request)} from ${d.from}`);
  }
}

export const run: CliCommand = {
  name: 'run',
  summary: 'Run Code-node code in the sandbox with declared packages',
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv);
    const file = path.resolve(io.cwd, args.file);
    let code: string;
    try {
      code = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
    }
    let workspace: string | undefined;
    if (args.workspace !== undefined) {
      workspace = path.resolve(io.cwd, args.workspace);
      const st = await stat(workspace).catch(() => undefined);
      if (!st?.isDirectory()) throw new UsageError(`--workspace ${workspace} is not a directory.`);
    }
    const root = resolveRoot(args.root, io);
    const catalog = await openRootCatalog(root);
    if (!catalog.ok) {
      io.err(catalog.message);
      return EXIT.usage;
    }

    let packages = args.packages;
    if (args.codeact) {
      const allow = args.sessionAllow.length ? new Set(args.sessionAllow) : await trustedSpecifiers(root, catalog.value);
      const declared = codeActDeclarations(code, allow);
      if (!declared.ok) {
        print(io, args.json, { ok: false, code: declared.code, message: declared.message, logs: [], receipt: { wallMs: 0, modules: [], calls: [], denied: [] } });
        return EXIT.failed;
      }
      packages = declared.value;
    }

    const grants: HostGrants = {
      ...(args.hosts.length ? { fetch: { hosts: args.hosts } } : {}),
      ...(workspace !== undefined ? { workspace: { dir: workspace } } : {}),
      ...(args.secrets.length ? { secrets: Object.fromEntries(args.secrets.map((name) => [name, io.env[name]])) } : {}),
    };
    const runner = createCodeRunner(catalog.value, { sandboxWorkers: 1, wasmLanes: 1 });
    try {
      const outcome = await runner.run({ code, packages, inputs: args.inputs, grants, timeoutMs: args.timeoutMs });
      const result: RunResult = outcome.ok ? outcome.value.result : { ok: false, code: outcome.code, message: outcome.message, logs: [], receipt: { wallMs: 0, modules: [], calls: [], denied: [] } };
      print(io, args.json, result);
      return result.ok ? EXIT.ok : EXIT.failed;
    } finally {
      await runner.close();
    }
  },
};
