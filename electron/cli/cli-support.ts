// What the installer's CLI commands share: their common options (--root, --registry, --json),
// a progress line on stderr, and one way to print a tagged result. The commands themselves stay
// a few lines each: the installer service does the work.

import path from 'node:path';
import { EXIT, UsageError, type CliIo, type ExitCode } from '../cli/command.ts';
import { defaultDataDir } from '../platform/data-dir.ts';
import type { Result } from '../../shared/protocol/result.ts';
import { createInstaller, type Installer } from './installer.ts';
import type { ProgressListener } from './root-ops.ts';

export interface InstallCliArgs {
  readonly positional: string[];
  readonly root: string;
  readonly registry?: string;
  readonly json: boolean;
  readonly flags: ReadonlySet<string>;
  readonly values: ReadonlyMap<string, string>;
}

export const COMMON_USAGE = '  --root DIR      install root (default: $SANDBOX_PACKS_ROOT or the app data directory)\n  --registry URL  npm registry (remembered per root)\n  --json          print the result as JSON';

/** Parse argv: `booleans` and `valued` name the command's own options beyond the common ones. */
export function parseInstallArgs(args: readonly string[], io: CliIo, booleans: readonly string[] = [], valued: readonly string[] = []): InstallCliArgs {
  const positional: string[] = [];
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [key, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (key === 'json' || booleans.includes(key)) {
      flags.add(key);
    } else if (key === 'root' || key === 'registry' || valued.includes(key)) {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') throw new UsageError(`--${key} needs a value.`);
      values.set(key, value);
    } else {
      throw new UsageError(`Unknown option --${key}.`);
    }
  }
  const rootArg = values.get('root');
  const root = rootArg ? path.resolve(io.cwd, rootArg) : defaultDataDir(io.env);
  const registry = values.get('registry');
  if (registry !== undefined && !/^https?:\/\/[^\s]+$/.test(registry)) throw new UsageError('--registry must be an http(s) URL.');
  return { positional, root, ...(registry ? { registry: registry.endsWith('/') ? registry : `${registry}/` } : {}), json: flags.has('json'), flags, values };
}

/** The one positional argument an install command takes (a spec, a pack name); a usage error otherwise. */
export function onlyPositional(args: InstallCliArgs, what: string): string {
  const [one, ...extra] = args.positional;
  if (!one || extra.length) throw new UsageError(`Give exactly one ${what}.`);
  return one;
}

export function installerFor(args: InstallCliArgs): Installer {
  return createInstaller({ root: args.root, ...(args.registry ? { registry: args.registry } : {}) });
}

export function progressLine(io: CliIo): ProgressListener {
  return (event) => io.err(`[${event.stage}] ${event.message}`);
}

/** Print a result (JSON on stdout, or `text(value)`), failures on stderr; return the exit code. */
export function finish<T>(io: CliIo, args: InstallCliArgs, result: Result<T>, text: (value: T) => string, json?: (value: T) => unknown): ExitCode {
  if (!result.ok) {
    if (args.json) io.out(JSON.stringify({ ok: false, code: result.code, message: result.message }));
    else io.err(`${result.code}: ${result.message}`);
    return result.code === 'usage' ? EXIT.usage : EXIT.failed;
  }
  if (args.json) io.out(JSON.stringify({ ok: true, ...(json ? (json(result.value) as object) : (result.value as object)) }));
  else io.out(text(result.value));
  return EXIT.ok;
}

/** Before a mutating command: fix what an interrupted run left behind, and say so. */
export async function reconcileFirst(installer: Installer, io: CliIo): Promise<void> {
  const report = await installer.reconcile();
  if (report.ok) for (const line of [...report.value.fixed, ...report.value.missing]) io.err(`[reconcile] ${line}`);
}
