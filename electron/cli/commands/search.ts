// `sandbox-packs search [TERM…]`: packs.search — the bundled registry index (or --index FILE/URL)
// merged with the registry's npm search (--registry URL, else the one the root remembers, else
// npm's), the same search the app's Available tab uses; each hit says where it came from.
import path from 'node:path';
import type { CliCommand } from '../command.ts';
import { parseCliArgs, REGISTRY_OPTIONS, registryOf, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish } from '../cli-support.ts';
import { usageText } from '../usage.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import type { PackSearchResult } from '../../../shared/contract/search-schemas.ts';

const OPTIONS = {
  registry: {
    ...REGISTRY_OPTIONS.registry,
    help: 'registry whose npm search is asked for packs with the "sandbox-pack" keyword\n(default: the one the install root remembers, else https://registry.npmjs.org/)',
  },
  root: { ...REGISTRY_OPTIONS.root, help: 'install root whose registry to use' },
  index: { kind: 'string', value: 'FILE|URL', help: 'registry index to merge with (default: the bundled index of our packs)' },
  json: REGISTRY_OPTIONS.json,
} as const;

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
  options: OPTIONS,
  usage: usageText({ synopsis: 'search [TERM…]', options: OPTIONS }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const root = rootOf(values.root, io);
    // Without --registry, the services use the one the root remembers (compose-services.ts).
    const registry = registryOf(values.registry);
    // A file index is named relative to where the command was run; a URL is left as it is.
    const index = values.index === undefined || /^[a-z][a-z0-9+.-]*:\/\//i.test(values.index) ? values.index : path.resolve(io.cwd, values.index);
    const result = await withCliServices(root, io, { ...(registry ? { registry } : {}), ...(index ? { registryIndex: index } : {}) }, (services) =>
      services.call('packs.search', { term: positionals.join(' ') }),
    );
    return finish(io, values.json, result, text, (value) => ({ results: value.hits, registry: value.registry, ...(value.note ? { note: value.note } : {}) }));
  },
};
