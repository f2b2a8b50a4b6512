// The one argv parser every `sandbox-packs` command uses: node:util's parseArgs (strict, so an
// unknown option is a usage error), with the CLI's own sentences for its failures, and the
// options most commands share: --root DIR (or --root=DIR), --registry URL checked by the
// contract's RegistryUrlSchema, --json, --wait SECONDS. A command declares its options once, as
// data (kind, placeholder, help line): its parser and its --help (usage.ts) both read that.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { RegistryUrlSchema } from '../../shared/contract/schemas.ts';
import { defaultDataDir } from '../platform/data-dir.ts';
import { UsageError, type CliIo } from './command.ts';

/** boolean: a flag; string: one value (the last one given wins); strings: repeatable. */
export type OptionKind = 'boolean' | 'string' | 'strings';

/** One option of a command: how it parses, and what its --help says (`value` names the argument). */
export interface OptionDecl {
  readonly kind: OptionKind;
  /** The placeholder in the help (DIR, URL, SECONDS); required for 'string' and 'strings'. */
  readonly value?: string;
  /** One sentence for the help; '\n' continues it on the next line. */
  readonly help: string;
}
export type OptionDecls = Readonly<Record<string, OptionDecl>>;
/** What parseCliArgs reads: a declaration, or (in tests and helpers) the bare kind. */
export type OptionSpecs = Readonly<Record<string, OptionKind | OptionDecl>>;

type KindOf<E> = E extends OptionDecl ? E['kind'] : E;
type ValueOf<K> = K extends 'boolean' ? boolean : K extends 'string' ? string | undefined : string[];
export type ParsedValues<S extends OptionSpecs> = { -readonly [N in keyof S]: ValueOf<KindOf<S[N]>> };

const kindOf = (entry: OptionKind | OptionDecl): OptionKind => (typeof entry === 'string' ? entry : entry.kind);

export interface ParsedArgs<S extends OptionSpecs> {
  readonly values: ParsedValues<S>;
  readonly positionals: string[];
}

/** How long a command waits for another operation on the same root before answering `busy`. */
export const DEFAULT_LOCK_WAIT_SECONDS = 60;

/** The options shared by commands that work on an install root. */
export const ROOT_OPTIONS = {
  root: { kind: 'string', value: 'DIR', help: 'install root (default: $SANDBOX_PACKS_ROOT or the app data directory)' },
  json: { kind: 'boolean', help: 'print the result as JSON' },
} as const satisfies OptionDecls;
export const REGISTRY_OPTIONS = {
  ...ROOT_OPTIONS,
  registry: { kind: 'string', value: 'URL', help: 'npm registry (remembered per root)' },
} as const satisfies OptionDecls;
/** Commands that change the root also take --wait SECONDS (how long to wait for another operation's lock). */
export const WAIT_OPTIONS = {
  wait: {
    kind: 'string',
    value: 'SECONDS',
    help: `how long to wait for another operation on the same root to finish (default ${DEFAULT_LOCK_WAIT_SECONDS}; 0: refuse at once)`,
  },
} as const satisfies OptionDecls;

/** --wait SECONDS as milliseconds: a whole number of seconds, 0 (refuse at once) up to an hour. */
export function lockWaitOf(wait: string | undefined): number {
  if (wait === undefined) return DEFAULT_LOCK_WAIT_SECONDS * 1000;
  if (!/^\d+$/.test(wait) || Number(wait) > 3600) throw new UsageError(`--wait ${JSON.stringify(wait)}: give a whole number of seconds from 0 to 3600.`);
  return Number(wait) * 1000;
}

const quoted = (message: string): string => /'(-{1,2}[^' <]+)/.exec(message)?.[1] ?? '';

/** Parse argv against `specs`; every mistake is a UsageError (exit 2 with the command's usage). */
export function parseCliArgs<S extends OptionSpecs>(args: readonly string[], specs: S, options: { readonly positionals?: boolean } = {}): ParsedArgs<S> {
  const config = Object.fromEntries(
    Object.entries(specs).map(([name, entry]) => [
      name,
      kindOf(entry) === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: kindOf(entry) === 'strings' },
    ]),
  );
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: config, strict: true, allowPositionals: options.positionals ?? true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`Unknown option "${quoted(message)}".`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const option = quoted(message);
      const entry = specs[option.replace(/^-+/, '')];
      throw new UsageError(entry !== undefined && kindOf(entry) === 'boolean' ? `${option} takes no value.` : `${option} needs a value.`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`Unexpected argument "${/'([^']*)'/.exec(message)?.[1] ?? ''}".`);
    throw error;
  }
  const values: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(specs)) {
    const kind = kindOf(entry);
    const raw = parsed.values[name];
    if (kind === 'boolean') values[name] = raw === true;
    else {
      const list = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
      if (list.some((value) => value === '')) throw new UsageError(`--${name} needs a value.`);
      values[name] = kind === 'strings' ? list : list.at(-1);
    }
  }
  return { values: values as ParsedValues<S>, positionals: parsed.positionals };
}

/** --root DIR against the caller's directory; the app's data directory (or SANDBOX_PACKS_ROOT) without it. */
export function rootOf(root: string | undefined, io: Pick<CliIo, 'env' | 'cwd'>): string {
  return root === undefined ? defaultDataDir(io.env) : path.resolve(io.cwd, root);
}

/** --registry URL, checked by the same schema the contract's settings.setRegistry uses; with a trailing slash. */
export function registryOf(registry: string | undefined): string | undefined {
  if (registry === undefined) return undefined;
  const parsed = RegistryUrlSchema.safeParse(registry);
  if (!parsed.success) throw new UsageError(`--registry ${JSON.stringify(registry)}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}.`);
  return parsed.data.endsWith('/') ? parsed.data : `${parsed.data}/`;
}

/** The one positional argument a command takes (a spec, a pack name, a file); a usage error otherwise. */
export function onlyPositional(positionals: readonly string[], what: string): string {
  const [one, ...extra] = positionals;
  if (!one || extra.length) throw new UsageError(`Give exactly one ${what}.`);
  return one;
}
