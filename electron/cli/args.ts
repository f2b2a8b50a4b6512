// The one argv parser every `sandbox-packs` command uses: node:util's parseArgs (strict, so an
// unknown option is a usage error), with the CLI's own sentences for its failures, and the
// options most commands share: --root DIR (or --root=DIR), --registry URL checked by the
// contract's RegistryUrlSchema, --json. A command lists its options once, as data.

import path from 'node:path';
import { parseArgs } from 'node:util';
import { RegistryUrlSchema } from '../../shared/contract/schemas.ts';
import { defaultDataDir } from '../platform/data-dir.ts';
import { UsageError, type CliIo } from './command.ts';

/** boolean: a flag; string: one value (the last one given wins); strings: repeatable. */
export type OptionKind = 'boolean' | 'string' | 'strings';
export type OptionSpecs = Readonly<Record<string, OptionKind>>;

type ValueOf<K extends OptionKind> = K extends 'boolean' ? boolean : K extends 'string' ? string | undefined : string[];
export type ParsedValues<S extends OptionSpecs> = { -readonly [N in keyof S]: ValueOf<S[N]> };

export interface ParsedArgs<S extends OptionSpecs> {
  readonly values: ParsedValues<S>;
  readonly positionals: string[];
}

/** The options shared by commands that work on an install root. */
export const ROOT_OPTIONS = { root: 'string', json: 'boolean' } as const satisfies OptionSpecs;
export const REGISTRY_OPTIONS = { ...ROOT_OPTIONS, registry: 'string' } as const satisfies OptionSpecs;
/** Commands that change the root also take --wait SECONDS (how long to wait for another operation's lock). */
export const WAIT_OPTIONS = { wait: 'string' } as const satisfies OptionSpecs;

/** How long a command waits for another operation on the same root before answering `busy`. */
export const DEFAULT_LOCK_WAIT_SECONDS = 60;

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
    Object.entries(specs).map(([name, kind]) => [
      name,
      kind === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: kind === 'strings' },
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
      throw new UsageError(specs[option.replace(/^-+/, '')] === 'boolean' ? `${option} takes no value.` : `${option} needs a value.`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`Unexpected argument "${/'([^']*)'/.exec(message)?.[1] ?? ''}".`);
    throw error;
  }
  const values: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(specs)) {
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
