// `sandbox-packs run FILE`: code.run through the contract dispatcher, with the same catalog, code
// runner, sandbox pool and WASM dispatcher the app uses, so a failing import or a denial
// reproduces exactly. FILE is a code file, or a saved workflow (`.json`, the editor's format): then
// each node runs in order (or the one --node names) with the grants the file gives it, resolved as
// a run from the app resolves them (services/node-grants.ts). With --codeact the declaration is
// not given: the code's imports are mounted only if each is on the session allowlist.
// --isolate SPEC only marks SPEC's --package declaration `isolation: true`: what that means (its
// own QuickJS context, data-only copies) is the kernel's (shared/sandbox/kernel/isolation.ts).
// Secrets: a granted secret's value is the environment variable named by --secret NAME when that
// is set (it wins), else the data directory's secret store. Exit codes: 0 ok, 1 guest error or
// denial, 2 bad usage or unreadable input.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import { SandboxModuleDeclarationSchema, type SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { emptyReceipt, IDENTIFIER_PATTERN, type RunResult } from '../../../shared/protocol/run.ts';
import { formatIssues } from '../../../shared/protocol/parse.ts';
import { codeActDeclarations } from '../../../shared/workflow/codeact.ts';
import type { FaceGrants } from '../../../shared/contract/dispatcher.ts';
import { effectiveAllowlist } from '../../../shared/contract/session-allowlist.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';
import { parseCliArgs, rootOf } from '../args.ts';
import { usageText } from '../usage.ts';
import { withCliServices, type CliServices } from '../cli-services.ts';
import { resolveNodeGrants, type GrantSources } from '../../services/node-grants.ts';
import { createFileSecretStore } from '../../services/secret-store.ts';
import { createWorkspaceStore } from '../../services/workspace-store.ts';
import { print, readRunFile, runWorkflow, type RunOptions } from './run-workflow.ts';

/** `specifier[@version][#digest]`; the version `@` is the last one after the first character. */
export function parsePackageOption(spec: string): SandboxModuleDeclaration {
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
  node: string | undefined;
  root: string | undefined;
  packages: SandboxModuleDeclaration[];
  /** --isolate: specifiers checked against `packages` once the file is known not to be a workflow. */
  isolate: string[];
  inputs: Record<string, unknown>;
  hosts: string[];
  workspace: string | undefined;
  secrets: string[];
  timeoutMs: number;
  json: boolean;
  codeact: boolean;
  sessionAllow: string[];
}

const OPTIONS = {
  root: { kind: 'string', value: 'DIR', help: 'install root (default: the app data directory, or SANDBOX_PACKS_ROOT)' },
  package: { kind: 'strings', value: 'SPEC', help: 'declare a package: specifier[@version][#digest] (repeatable)' },
  isolate: {
    kind: 'strings',
    value: 'SPEC',
    help: "run the module of --package SPEC isolated: it cannot reach this node's network,\nworkspace or secrets, and sees only the values passed to it (repeatable)",
  },
  input: { kind: 'strings', value: 'NAME=JSON', help: 'bind a global NAME to a JSON value (repeatable)' },
  'allow-fetch': { kind: 'strings', value: 'HOST', help: 'grant fetch to HOST, or *.domain for its subdomains (repeatable)' },
  workspace: { kind: 'string', value: 'DIR', help: 'grant read/write/list under DIR' },
  secret: {
    kind: 'strings',
    value: 'NAME',
    help: 'grant getSecret(NAME) (for a workflow: take the value of a secret its nodes are\ngranted); the environment variable NAME wins when set, else the secret store',
  },
  timeout: { kind: 'string', value: 'MS', help: `deadline in ms (default and maximum ${LIMITS.guestTimeoutMs})` },
  json: { kind: 'boolean', help: 'print { ok, value, logs, receipt } or { ok, code, message, logs }' },
  codeact: { kind: 'boolean', help: 'CodeAct step: mount the imports the code makes, if the session allows them' },
  'session-allow': { kind: 'strings', value: 'SPEC', help: 'a specifier this CodeAct session may mount (repeatable; default: packs trusted for agents)' },
  node: { kind: 'string', value: 'ID', help: 'run only this node of the WORKFLOW.json' },
} as const;

const USAGE = usageText({
  synopsis: 'run FILE|WORKFLOW.json',
  about: [
    'Runs Code-node code in the sandbox with the declared packages of an install root.',
    "With --codeact the packages come from the code's imports (no --package), each if the session allows it.",
    'A WORKFLOW.json (a saved workflow: <data dir>/workflows/NAME.json) runs each node in order, or the one',
    "--node names, with the packages and grants the file gives it; its workspace is the workflow's folder",
    '(<data dir>/workspaces/NAME/ unless chosen in the app) and its secrets come from the secret store.',
    '(--package, --isolate, --allow-fetch and --codeact are for a code FILE only.)',
  ],
  options: OPTIONS,
  footer: ['Exit status: 0 ok, 1 the code failed or was denied, 2 bad usage.'],
});

function parseRunArgs(args: readonly string[]): RunArgs {
  const { values, positionals } = parseCliArgs(args, OPTIONS);
  if (positionals.length !== 1) throw new UsageError(positionals.length ? 'Give exactly one FILE.' : 'Give the FILE with the code to run.');
  let timeoutMs: number = LIMITS.guestTimeoutMs;
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > LIMITS.guestTimeoutMs)
      throw new UsageError(`--timeout must be a whole number of ms from 1 to ${LIMITS.guestTimeoutMs}.`);
  }
  const inputs: Record<string, unknown> = {};
  for (const raw of values.input) {
    const eq = raw.indexOf('=');
    const name = eq > 0 ? raw.slice(0, eq) : '';
    if (!IDENTIFIER_PATTERN.test(name)) throw new UsageError(`--input ${JSON.stringify(raw)}: expected NAME=JSON with NAME a JavaScript identifier.`);
    try {
      inputs[name] = JSON.parse(raw.slice(eq + 1)) as unknown;
    } catch {
      throw new UsageError(`--input ${name}: the value is not valid JSON.`);
    }
  }
  for (const secret of values.secret)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secret)) throw new UsageError(`--secret ${JSON.stringify(secret)}: a secret name is an environment variable name.`);
  if (values.codeact && values.package.length) throw new UsageError("--codeact takes its packages from the code's imports; do not pass --package.");
  if (values.codeact && values.isolate.length)
    throw new UsageError(
      "--isolate marks a --package declaration, and --codeact takes its packages from the code's imports; run without --codeact to isolate a package.",
    );
  if (!values.codeact && values['session-allow'].length) throw new UsageError('--session-allow only applies with --codeact.');
  return {
    file: positionals[0] as string,
    node: values.node,
    root: values.root,
    packages: values.package.map(parsePackageOption),
    isolate: values.isolate,
    inputs,
    hosts: values['allow-fetch'].map((host) => host.toLowerCase()),
    workspace: values.workspace,
    secrets: values.secret,
    timeoutMs,
    json: values.json,
    codeact: values.codeact,
    sessionAllow: values['session-allow'].map((spec) => parsePackageOption(spec).specifier),
  };
}

/** The --package declarations with each one --isolate names marked `isolation: true`. */
export function markIsolated(packages: readonly SandboxModuleDeclaration[], isolate: readonly string[]): SandboxModuleDeclaration[] {
  const declared = new Set(packages.map((p) => p.specifier));
  for (const specifier of isolate)
    if (!declared.has(specifier)) {
      const known = declared.size ? `declared: ${[...declared].map((s) => JSON.stringify(s)).join(', ')}` : 'no --package was given';
      throw new UsageError(
        `--isolate ${JSON.stringify(specifier)}: no --package declares that specifier (${known}). Declare it with --package too, or isolate a declared one.`,
      );
    }
  const isolated = new Set(isolate);
  return packages.map((p) => (isolated.has(p.specifier) ? { ...p, isolation: true } : p));
}

/**
 * The CodeAct default when no --session-allow is given: the same rule the app and the MCP server
 * apply to an empty saved allowlist (the ready modules of trusted, active packs). A root without
 * a ledger has no trusted packs.
 */
async function defaultAllowlist(services: CliServices): Promise<string[]> {
  const packs = await services.call('packs.list', {});
  const modules = await services.call('catalog.summaries', {});
  if (!packs.ok || !modules.ok) return [];
  return effectiveAllowlist([], packs.value.packs, modules.value.modules).specifiers;
}

export const run: CliCommand = {
  name: 'run',
  summary: 'Run Code-node code, or a saved workflow, in the sandbox with declared packages',
  options: OPTIONS,
  usage: USAGE,
  async run(argv, io) {
    const args = parseRunArgs(argv);
    const file = path.resolve(io.cwd, args.file);
    const input = await readRunFile(file);
    if (input.kind === 'code' && args.node !== undefined) throw new UsageError('--node only applies to a workflow file (WORKFLOW.json).');
    if (input.kind === 'workflow') {
      for (const [given, option] of [
        [args.packages.length > 0, '--package'],
        [args.isolate.length > 0, '--isolate'],
        [args.hosts.length > 0, '--allow-fetch'],
        [args.codeact, '--codeact'],
      ] as const)
        if (given) throw new UsageError(`${option} does not apply to a workflow file: its nodes declare their own packages and grants.`);
    }
    let workspace: string | undefined;
    if (args.workspace !== undefined) {
      workspace = path.resolve(io.cwd, args.workspace);
      const st = await stat(workspace).catch(() => undefined);
      if (!st?.isDirectory()) throw new UsageError(`--workspace ${workspace} is not a directory.`);
    }
    const root = rootOf(args.root, io);
    // The same secret store and workspace folders the app uses for this data directory (the desktop
    // app's own store is sealed by its keychain, which only the app can open).
    const sources: GrantSources = {
      secrets: createFileSecretStore(root),
      workspaces: createWorkspaceStore(root),
      overrides: Object.fromEntries(args.secrets.map((name) => [name, io.env[name]])),
      ...(workspace !== undefined ? { workspaceDir: workspace } : {}),
    };
    return withCliServices(root, io, {}, async (services) => {
      const catalog = await services.openCatalog();
      if (!catalog.ok) {
        io.err(catalog.message);
        return EXIT.usage;
      }
      const options: RunOptions = { inputs: args.inputs, timeoutMs: args.timeoutMs, json: args.json };
      if (input.kind === 'workflow') return runWorkflow(services, io, { file, workflow: input.workflow, node: args.node, sources, options });

      let packages = markIsolated(args.packages, args.isolate);
      if (args.codeact) {
        const allow = new Set(args.sessionAllow.length ? args.sessionAllow : await defaultAllowlist(services));
        const declared = codeActDeclarations(input.code, allow);
        if (!declared.ok) {
          print(io, args.json, { ok: false, code: declared.code, message: declared.message, logs: [], receipt: emptyReceipt() });
          return EXIT.failed;
        }
        packages = declared.value;
      }

      // The workspace folder and the secrets' values are the CLI's own grants: the contract carries neither.
      const resolved = await resolveNodeGrants({ secrets: args.secrets }, sources);
      if (!resolved.ok) {
        io.err(resolved.message);
        return EXIT.usage;
      }
      const grants: FaceGrants = resolved.value;
      const request = {
        code: input.code,
        packages,
        inputs: args.inputs,
        ...(args.hosts.length ? { fetchHosts: args.hosts } : {}),
        timeoutMs: args.timeoutMs,
      };
      const outcome = await services.call('code.run', request, grants);
      // What the contract refuses was made from argv (a host pattern, an input name): bad usage.
      if (!outcome.ok && outcome.code === 'invalid-request') throw new UsageError(outcome.message);
      const result: RunResult = outcome.ok
        ? outcome.value.result
        : { ok: false, code: outcome.code, message: outcome.message, logs: [], receipt: emptyReceipt() };
      print(io, args.json, result);
      return result.ok ? EXIT.ok : EXIT.failed;
    });
  },
};
