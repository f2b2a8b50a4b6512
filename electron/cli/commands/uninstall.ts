// `sandbox-packs uninstall NAME`: forget the pack in the ledger, then remove it from the root.
import type { CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, onlyPositional, parseInstallArgs, progressLine, reconcileFirst } from '../../install/cli-support.ts';

export const uninstall: CliCommand = {
  name: 'uninstall',
  summary: 'Remove an installed pack',
  usage: `Usage: sandbox-packs uninstall NAME [--root DIR] [--json]\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io);
    const name = onlyPositional(args, 'pack name');
    const installer = installerFor(args);
    await reconcileFirst(installer, io);
    return finish(io, args, await installer.uninstall(name, { onProgress: progressLine(io) }), (o) => `Removed ${o.name}@${o.version}.`);
  },
};
