// `sandbox-packs install SPEC`: npm install with scripts off, classify the installed artifact,
// record it; sandbox-only packs are active at once, others wait for `trust`.
import { EXIT, type CliCommand } from '../command.ts';
import { COMMON_USAGE, finish, installerFor, onlyPositional, parseInstallArgs, progressLine, reconcileFirst } from '../../install/cli-support.ts';

export const install: CliCommand = {
  name: 'install',
  summary: 'Install a pack (no install scripts run; host code waits for trust)',
  usage: `Usage: sandbox-packs install SPEC [--root DIR] [--registry URL] [--json]\n\nSPEC: name, name@version, name@tag, a local .tgz, or an https tarball URL (labelled "unverified source").\nGit specs are not supported.\n${COMMON_USAGE}`,
  async run(argv, io) {
    const args = parseInstallArgs(argv, io);
    const spec = onlyPositional(args, 'package spec');
    const installer = installerFor(args);
    await reconcileFirst(installer, io);
    const result = await installer.install(spec, { onProgress: progressLine(io) });
    const code = finish(io, args, result, (o) => {
      const lines = [`Installed ${o.name}@${o.version} (${o.installMode}, source: ${o.sourceLabel}) — ${o.status === 'active' ? 'active' : 'needs trust'}.`];
      if (o.scripts.length) lines.push(`Install scripts found (not run): ${o.scripts.map((s) => `${s.package} ${s.event}`).join(', ')}.`);
      if (o.status !== 'active') lines.push(`Its host code needs your trust: \`sandbox-packs trust ${o.name} --dry-run\` shows what would run.`);
      if (o.installMode !== 'register') lines.push('Its modules run inside your workflows with the node\'s capabilities.');
      return lines.join('\n');
    });
    return code === EXIT.ok ? EXIT.ok : code;
  },
};
