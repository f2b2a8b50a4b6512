// `sandbox-packs update NAME [--to VERSION]`: install another version, re-classified like a new
// install; consent does not carry over to a different artifact.
import type { CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, onlyPositional, parseInstallArgs, progressLine, reconcileFirst } from '../../install/cli-support.ts';

export const update: CliCommand = {
  name: 'update',
  summary: 'Update a pack to the latest (or a given) version',
  usage: `Usage: sandbox-packs update NAME [--to VERSION] [--root DIR] [--registry URL] [--json]\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io, [], ['to']);
    const name = onlyPositional(args, 'pack name');
    const installer = installerFor(args);
    await reconcileFirst(installer, io);
    const to = args.values.get('to');
    const result = await installer.update(name, { onProgress: progressLine(io), ...(to ? { to } : {}) });
    return finish(io, args, result, (o) =>
      [`Updated ${o.name} ${o.previousVersion ?? '?'} → ${o.version} (${o.installMode}) — ${o.status === 'active' ? 'active' : 'needs trust'}.`, ...(o.status !== 'active' ? [`Trust is given per artifact: \`sandbox-packs trust ${o.name} --dry-run\`.`] : [])].join('\n'),
    );
  },
};
