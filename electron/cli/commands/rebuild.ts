// `sandbox-packs rebuild NAME`: run a trusted pack's install scripts again against the artifact
// on disk (or a refetched copy whose integrity matches the first install).
import type { CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, onlyPositional, parseInstallArgs, progressLine, reconcileFirst } from '../../install/cli-support.ts';

export const rebuild: CliCommand = {
  name: 'rebuild',
  summary: 'Re-run a trusted pack\'s install scripts',
  usage: `Usage: sandbox-packs rebuild NAME [--root DIR] [--json]\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io);
    const name = onlyPositional(args, 'pack name');
    const installer = installerFor(args);
    await reconcileFirst(installer, io);
    const result = await installer.rebuild(name, { onProgress: progressLine(io) });
    return finish(io, args, result, (o) => o.note ?? `Rebuilt ${o.name}@${o.version}: ran ${o.scriptsRun.length ? o.scriptsRun.join(', ') : 'nothing (no install scripts)'}${o.refetched ? ' after verifying a refetched artifact' : ''}.`);
  },
};
