// `sandbox-packs trust NAME [--dry-run]`: consent to the exact installed artifact (name, version,
// integrity) and run its install scripts; --dry-run prints the literal scripts first.
import type { CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, onlyPositional, parseInstallArgs, progressLine, reconcileFirst } from '../../install/cli-support.ts';

export const trust: CliCommand = {
  name: 'trust',
  summary: 'Trust a pack\'s exact artifact and run its install scripts (--dry-run shows them)',
  usage: `Usage: sandbox-packs trust NAME [--dry-run] [--root DIR] [--json]\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io, ['dry-run']);
    const name = onlyPositional(args, 'pack name');
    const installer = installerFor(args);
    if (args.flags.has('dry-run')) {
      return finish(io, args, await installer.trustDryRun(name), (o) => {
        const head = `Trusting ${o.name}@${o.version} (${o.installMode}, ${o.integrity}) would allow its host code to run with full app privileges, and run:`;
        const lines = o.scripts.map((s) => `  ${s.own ? o.name : `${s.package}@${s.version} (dependency)`} ${s.event}: ${s.command}`);
        return [head, ...(lines.length ? lines : ['  (no install scripts)'])].join('\n');
      });
    }
    await reconcileFirst(installer, io);
    const result = await installer.trust(name, { onProgress: progressLine(io) });
    return finish(io, args, result, (o) => o.note ?? `Trusted ${o.name}@${o.version}; ${o.scriptsRun.length ? `ran the install scripts of ${o.scriptsRun.join(', ')}` : 'it has no install scripts'}${o.refetched ? ' (after fetching it again and verifying its integrity)' : ''}. Active.`);
  },
};
