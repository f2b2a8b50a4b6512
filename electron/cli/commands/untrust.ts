// `sandbox-packs untrust NAME`: packs.decideUse with trusted false — revoke the user's trust in a
// pack for agents (its modules leave the agent's default allowlist; its SKILL.md reads as
// untrusted). Host-code consent is an artifact's setup, not revoked here: uninstall removes it.
import type { CliCommand } from '../command.ts';
import { lockWaitOf, onlyPositional, parseCliArgs, WAIT_OPTIONS, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, reconcileFirst } from '../cli-support.ts';
import { usageText } from '../usage.ts';

const OPTIONS = { ...ROOT_OPTIONS, ...WAIT_OPTIONS } as const;

export const untrust: CliCommand = {
  name: 'untrust',
  summary: 'Revoke your trust in a pack for agents (its modules leave the default allowlist)',
  options: OPTIONS,
  usage: usageText({ synopsis: 'untrust NAME', options: OPTIONS }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const name = onlyPositional(positionals, 'pack name');
    const root = rootOf(values.root, io);
    const lockWaitMs = lockWaitOf(values.wait);
    await reconcileFirst(root, io);
    const result = await withCliServices(root, io, { lockWaitMs }, (services) => services.call('packs.decideUse', { name, trusted: false }));
    return finish(io, values.json, result, (o) =>
      [
        `${o.name}@${o.version} is no longer trusted for agents: its modules leave the agent's default allowlist, and its SKILL.md reads as untrusted.`,
        ...(o.installMode === 'sandbox-only' ? [] : ['Its host code stays set up as you trusted it; uninstall the pack to remove that.']),
        `\`sandbox-packs trust ${o.name}\` trusts it again.`,
      ].join('\n'),
    );
  },
};
