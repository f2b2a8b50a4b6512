// `sandbox-packs install SPEC`: packs.install — npm install with scripts off, classify the
// installed artifact, examine it with discovery, record it; sandbox-only packs are active at once,
// others wait for `trust`.
import { EXIT, type CliCommand } from '../command.ts';
import { lockWaitOf, onlyPositional, parseCliArgs, WAIT_OPTIONS, REGISTRY_OPTIONS, registryOf, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, reconcileFirst } from '../cli-support.ts';
import { usageText } from '../usage.ts';

const OPTIONS = { ...REGISTRY_OPTIONS, ...WAIT_OPTIONS };
import { stateWords, trustForUse } from '../../../shared/contract/pack-state.ts';

export const install: CliCommand = {
  name: 'install',
  summary: 'Install a pack (no install scripts run; host code waits for trust)',
  options: OPTIONS,
  usage: usageText({
    synopsis: 'install SPEC',
    about: ['SPEC: name, name@version, name@tag, a local .tgz, or an https tarball URL (labelled "unverified source").', 'Git specs are not supported.'],
    options: OPTIONS,
  }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const spec = onlyPositional(positionals, 'package spec');
    const root = rootOf(values.root, io);
    const registry = registryOf(values.registry);
    const lockWaitMs = lockWaitOf(values.wait);
    await reconcileFirst(root, io);
    const result = await withCliServices(root, io, { ...(registry ? { registry } : {}), lockWaitMs }, (services) => services.call('packs.install', { spec }));
    const code = finish(io, values.json, result, (o) => {
      const words = stateWords(o);
      const lines = [`Installed ${o.name}@${o.version} (${o.installMode}, source: ${words.source}) — ${words.setup}; ${words.use}.`];
      if (o.scripts.length) lines.push(`Install scripts found (not run): ${o.scripts.map((s) => `${s.package} ${s.event}`).join(', ')}.`);
      if (o.status !== 'active') lines.push(`Its host code needs your trust: \`sandbox-packs trust ${o.name} --dry-run\` shows what would run.`);
      if (o.installMode !== 'register') lines.push("Its modules run inside your workflows with the node's capabilities.");
      if (o.installMode !== 'register' && trustForUse(o) === 'untrusted')
        lines.push(`\`sandbox-packs trust ${o.name}\` offers its modules to agents by default.`);
      return lines.join('\n');
    });
    return code === EXIT.ok ? EXIT.ok : code;
  },
};
