// The members of a module's default export, for completion after `Papa.`: the catalog lists a
// module's export names, but a CommonJS package's default export is an object built when the
// module runs, so its members are asked of the sandbox — one code.run, with no capabilities and
// only that module declared, of `Object.keys` on the default export. Answers are kept per
// module version and digest for the page's life; a failed one for RETRY_MS, so typing on after
// `X.` does not start a run per key.

import type { ContractClient } from '../../../shared/contract/client.ts';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { MemberInfo } from './export-completions.ts';

/** At most this many members are listed (a default export is rarely larger; the rest are not offered). */
export const MEMBERS_MAX = 500;
const LOOKUP_TIMEOUT_MS = 5_000;
const RETRY_MS = 30_000;

const cache = new Map<string, Promise<readonly MemberInfo[] | undefined>>();

/** The guest code that lists the default export's own members (a function's built-in ones left out). */
export function membersProbe(specifier: string): string {
  return [
    `import value from ${JSON.stringify(specifier)};`,
    'if (value === null || (typeof value !== "object" && typeof value !== "function")) return [];',
    'const skip = new Set(["length", "name", "prototype", "arguments", "caller"]);',
    'const names = typeof value === "function" ? Object.getOwnPropertyNames(value).filter((n) => !skip.has(n)) : Object.keys(value);',
    `return names.slice(0, ${MEMBERS_MAX}).map((name) => { let type = "unknown"; try { type = typeof value[name]; } catch {} return { name, type }; });`,
  ].join('\n');
}

function parseMembers(value: unknown): MemberInfo[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const { name, type } = item as { name?: unknown; type?: unknown };
    return typeof name === 'string' && typeof type === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? [{ name, type }] : [];
  });
}

export function defaultMembers(client: ContractClient, module: ModuleSummary): Promise<readonly MemberInfo[] | undefined> {
  if (module.kind !== 'js' || module.status !== 'ready' || !module.exports?.includes('default')) return Promise.resolve(undefined);
  const key = `${module.specifier}@${module.packVersion}#${module.digest ?? ''}`;
  const known = cache.get(key);
  if (known) return known;
  const lookup = client
    .call('code.run', { code: membersProbe(module.specifier), packages: [{ specifier: module.specifier }], timeoutMs: LOOKUP_TIMEOUT_MS })
    .then((answer) => (answer.ok && answer.value.result.ok ? parseMembers(answer.value.result.value) : undefined))
    .catch(() => undefined)
    .then((members) => {
      if (members === undefined) setTimeout(() => cache.delete(key), RETRY_MS);
      return members;
    });
  cache.set(key, lookup);
  return lookup;
}
