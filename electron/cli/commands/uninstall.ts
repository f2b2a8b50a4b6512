// `sandbox-packs uninstall NAME`: packs.uninstall — forget the pack in the ledger, then remove it from the root.
import type { CliCommand } from '../command.ts';
import { lockWaitOf, onlyPositional, parseCliArgs, WAIT_OPTIONS, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, reconcileFirst } from '../cli-support.ts';
import { usageText } from '../usage.ts';

const OPTIONS = { ...ROOT_OPTIONS, ...WAIT_OPTIONS };

export const uninstall: CliCommand = {
  name: 'uninstall',
  summary: 'Remove an installed pack',
  options: OPTIONS,
  usage: usageText({ synopsis: 'uninstall NAME', options: OPTIONS }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const name = onlyPositional(positionals, 'pack name');
    const root = rootOf(values.root, io);
    const lockWaitMs = lockWaitOf(values.wait);
    await reconcileFirst(root, io);
    return withCliServices(root, io, { lockWaitMs }, async (services) => {
      // The version it had, for the sentence: packs.uninstall answers with the name only.
      const listed = await services.call('packs.list', {});
      const version = listed.ok ? listed.value.packs.find((p) => p.name === name)?.version : undefined;
      const result = await services.call('packs.uninstall', { name });
      return finish(
        io,
        values.json,
        result,
        (o) => `Removed ${o.name}${version ? `@${version}` : ''}.`,
        (o) => ({ ...o, ...(version ? { version } : {}) }),
      );
    });
  },
};
