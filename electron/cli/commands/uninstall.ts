// `sandbox-packs uninstall NAME`: forget the pack in the ledger, then remove it from the root.
import { UsageError, type CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, parseInstallArgs, progressLine, reconcileFirst } from '../../install/cli-support.ts';

export const uninstall: CliCommand = {
  name: 'uninstall',
  summary: 'Remove an installed pack',
  usage: `Usage: sandbox-packs uninstall NAME [--root DIR] [--json]\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io);
    const [name, ...extra] = args.positional;
    if (!name || extra.length) throw new UsageError('Give exactly one pack name.');
    const installer = installerFor(args);
    await reconcileFirst(installer, io);
    return finish(io, args, await installer.uninstall(name, { onProgress: progressLine(io) }), (o) => `Removed ${o.name}@${o.version}.`);
  },
};
