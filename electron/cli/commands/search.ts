// `sandbox-packs search [TERM…]`: find packs in the bundled registry index (or --index FILE/URL)
// and on the registry (--registry URL, else the one the root remembers, else npm's), through the
// same search the app's Available tab uses; each hit says where it came from.
import type { CliCommand } from '../command.ts';
import { finish, parseInstallArgs } from '../../install/cli-support.ts';
import { readLedger } from '../../install/ledger-store.ts';
import { DEFAULT_REGISTRY } from '../../install/npm-root.ts';
import { searchPacks } from '../../install/registry-search.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import type { PackSearchResult } from '../../../shared/contract/search-schemas.ts';

const SOURCE_TEXT = { index: 'bundled index', registry: 'registry' } as const;

function text(result: PackSearchResult): string {
  const t = (s: string): string => displayText(s);
  const lines = result.hits.flatMap((e) => [
    `${e.recommended ? '★ ' : '  '}${t(e.name)}@${t(e.version)}  ${t(e.description)}  [${e.sources.map((s) => SOURCE_TEXT[s]).join(', ')}]`,
    ...(e.modules ? e.modules.map((m) => `    ${t(m)}`) : e.sandboxModules.length ? [`    modules: ${e.sandboxModules.map(t).join(', ')}`] : []),
  ]);
  if (lines.length === 0) lines.push('No packs match.');
  if (result.note) lines.push('', `Note: ${t(result.note)}`);
  return lines.join('\n');
}

export const search: CliCommand = {
  name: 'search',
  summary: 'Search the bundled pack index and the registry for packs',
  usage:
    'Usage: sandbox-packs search [TERM…] [--registry URL] [--root DIR] [--index FILE|URL] [--json]\n\n' +
    '  --registry URL    registry whose npm search is asked for packs with the "sandbox-pack" keyword\n' +
    '                    (default: the one the install root remembers, else https://registry.npmjs.org/)\n' +
    '  --root DIR        install root whose registry to use\n' +
    '  --index FILE|URL  registry index to merge with (default: the bundled index of our packs)\n' +
    '  --json            print the result as JSON',
  async run(argv, io) {
    const args = parseInstallArgs(argv, io, [], ['index']);
    let registry = args.registry;
    if (!registry) {
      const ledger = await readLedger(args.root);
      registry = (ledger.ok ? ledger.value?.registry : undefined) ?? DEFAULT_REGISTRY;
    }
    const result = await searchPacks({ term: args.positional.join(' '), registry, ...(args.values.get('index') ? { index: args.values.get('index') as string } : {}), cwd: io.cwd });
    return finish(io, args, result, text, (value) => ({ results: value.hits, registry: value.registry, ...(value.note ? { note: value.note } : {}) }));
  },
};
