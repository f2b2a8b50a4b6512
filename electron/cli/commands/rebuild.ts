// `sandbox-packs rebuild NAME`: packs.rebuild — run a trusted pack's install scripts again against
// the artifact on disk (or a refetched copy whose integrity matches the first install).
import type { CliCommand } from '../command.ts';
import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { lockWaitOf, onlyPositional, parseCliArgs, WAIT_OPTIONS, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, reconcileFirst } from '../cli-support.ts';
import { usageText } from '../usage.ts';

const OPTIONS = { ...ROOT_OPTIONS, ...WAIT_OPTIONS };

/** Whose install scripts a trust or rebuild ran: the packages the recorded scripts belong to. */
export function scriptsRanText(pack: InstalledPack, none: string): string {
  const packages = [...new Set(pack.scripts.map((s) => s.package))];
  return packages.length ? `ran the install scripts of ${packages.join(', ')}` : none;
}

export const rebuild: CliCommand = {
  name: 'rebuild',
  summary: "Re-run a trusted pack's install scripts",
  options: OPTIONS,
  usage: usageText({ synopsis: 'rebuild NAME', options: OPTIONS }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const name = onlyPositional(positionals, 'pack name');
    const root = rootOf(values.root, io);
    const lockWaitMs = lockWaitOf(values.wait);
    await reconcileFirst(root, io);
    const result = await withCliServices(root, io, { lockWaitMs }, (services) => services.call('packs.rebuild', { name }));
    return finish(io, values.json, result, (o) =>
      o.installMode === 'sandbox-only'
        ? 'Sandbox-only packs never run install scripts.'
        : `Rebuilt ${o.name}@${o.version}: ${scriptsRanText(o, 'ran nothing (no install scripts)')}.`,
    );
  },
};
