// `sandbox-packs list`: the packs the root's ledger records, with mode, status and source.
import type { CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, parseInstallArgs } from '../../install/cli-support.ts';

export const list: CliCommand = {
  name: 'list',
  summary: 'List installed packs',
  usage: `Usage: sandbox-packs list [--root DIR] [--json]\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io);
    return finish(
      io,
      args,
      await installerFor(args).list(),
      (o) => (o.packs.length ? o.packs.map((p) => `${p.name}@${p.version}  ${p.installMode}  ${p.status}  ${p.sourceLabel}${p.scripts.length ? `  scripts: ${p.scripts.length}` : ''}`).join('\n') : 'No packs installed.'),
      (o) => ({ registry: o.registry, packs: o.packs.map((p) => ({ name: p.name, version: p.version, installMode: p.installMode, status: p.status, sourceLabel: p.sourceLabel, integrity: p.integrity, scripts: p.scripts })) }),
    );
  },
};
