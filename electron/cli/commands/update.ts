// `sandbox-packs update NAME [--to VERSION]`: packs.update — install another version, classified
// again like a new install; consent does not carry over to a different artifact.
import type { CliCommand } from '../command.ts';
import { lockWaitOf, onlyPositional, parseCliArgs, WAIT_OPTIONS, REGISTRY_OPTIONS, registryOf, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, reconcileFirst } from '../cli-support.ts';
import { usageText } from '../usage.ts';

const OPTIONS = {
  to: { kind: 'string', value: 'VERSION', help: 'the version to install (default: the latest)' },
  ...REGISTRY_OPTIONS,
  ...WAIT_OPTIONS,
} as const;

export const update: CliCommand = {
  name: 'update',
  summary: 'Update a pack to the latest (or a given) version',
  options: OPTIONS,
  usage: usageText({ synopsis: 'update NAME', options: OPTIONS }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const name = onlyPositional(positionals, 'pack name');
    const root = rootOf(values.root, io);
    const registry = registryOf(values.registry);
    const lockWaitMs = lockWaitOf(values.wait);
    await reconcileFirst(root, io);
    return withCliServices(root, io, { ...(registry ? { registry } : {}), lockWaitMs }, async (services) => {
      const listed = await services.call('packs.list', {});
      const previousVersion = listed.ok ? listed.value.packs.find((p) => p.name === name)?.version : undefined;
      const result = await services.call('packs.update', { name, ...(values.to ? { to: values.to } : {}) });
      return finish(
        io,
        values.json,
        result,
        (o) =>
          [
            `Updated ${o.name} ${previousVersion ?? '?'} → ${o.version} (${o.installMode}) — ${o.status === 'active' ? 'active' : 'needs trust'}.`,
            ...(o.status !== 'active' ? [`Trust is given per artifact: \`sandbox-packs trust ${o.name} --dry-run\`.`] : []),
          ].join('\n'),
        (o) => ({ ...o, ...(previousVersion ? { previousVersion } : {}) }),
      );
    });
  },
};
