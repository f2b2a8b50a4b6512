// `sandbox-packs search TERM`: search a registry index (bundled default, or --index FILE/URL).
import type { CliCommand } from '../command.ts';
import { finish, parseInstallArgs } from '../../install/cli-support.ts';
import { loadRegistryIndex } from '../../install/registry-search.ts';
import { searchIndex } from '../../../shared/protocol/registry-index.ts';
import { ok } from '../../../shared/protocol/result.ts';

export const search: CliCommand = {
  name: 'search',
  summary: 'Search the pack registry index',
  usage: 'Usage: sandbox-packs search [TERM…] [--index FILE|URL] [--json]\n\n  --index FILE|URL  registry index to search (default: the bundled index of our packs)\n  --json            print the result as JSON',
  async run(argv, io) {
    const args = parseInstallArgs(argv, io, [], ['index']);
    const loaded = await loadRegistryIndex(args.values.get('index'), io.cwd);
    const result = loaded.ok ? ok(searchIndex(loaded.value, args.positional.join(' '))) : loaded;
    return finish(
      io,
      args,
      result,
      (hits) => (hits.length ? hits.map((e) => `${e.recommended ? '★ ' : '  '}${e.name}@${e.version}  ${e.description}\n    modules: ${e.sandboxModules.join(', ')}`).join('\n') : 'No packs match.'),
      (hits) => ({ results: hits }),
    );
  },
};
