// `sandbox-packs list`: packs.list — the packs the root's ledger records, with mode, setup state,
// trust for agents and source in the words every screen uses (shared/contract/pack-state.ts), and
// (in --json) the registry the root remembers.
import type { CliCommand } from '../command.ts';
import { parseCliArgs, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, repairIfNeeded } from '../cli-support.ts';
import { usageText } from '../usage.ts';
import { stateWords } from '../../../shared/contract/pack-state.ts';

export const list: CliCommand = {
  name: 'list',
  summary: 'List installed packs',
  options: ROOT_OPTIONS,
  usage: usageText({ synopsis: 'list', options: ROOT_OPTIONS }),
  async run(argv, io) {
    const { values } = parseCliArgs(argv, ROOT_OPTIONS, { positionals: false });
    const root = rootOf(values.root, io);
    await repairIfNeeded(root, io);
    const result = await withCliServices(root, io, {}, (services) => services.call('packs.list', {}));
    return finish(
      io,
      values.json,
      result,
      (o) =>
        o.packs.length
          ? o.packs
              .map((p) => {
                const words = stateWords(p);
                return `${p.name}@${p.version}  ${p.installMode}  ${words.setup}  ${words.use}  ${words.source}${p.scripts.length ? `  scripts: ${p.scripts.length}` : ''}`;
              })
              .join('\n')
          : 'No packs installed.',
      (o) => ({
        registry: o.registry,
        packs: o.packs.map((p) => ({
          name: p.name,
          version: p.version,
          installMode: p.installMode,
          status: p.status,
          sourceLabel: p.sourceLabel,
          // The words every screen shows for this pack (shared/contract/pack-state.ts).
          states: stateWords(p),
          integrity: p.integrity,
          scripts: p.scripts,
        })),
      }),
    );
  },
};
