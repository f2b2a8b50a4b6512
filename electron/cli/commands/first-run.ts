// `sandbox-packs first-run`: seeds a data directory with the packs the app ships and the example
// workflow, the same step the app and `serve` take on the default data directory. Useful for a
// root given with --root (which the app never seeds on its own) and for checking a bundle. Seeding
// is the app's start-up step, not a contract method, so this command calls it directly.

import { seedDataDir } from '../../first-run/index.ts';
import { EXIT, type CliCommand } from '../command.ts';
import { parseCliArgs, REGISTRY_OPTIONS, registryOf, rootOf } from '../args.ts';
import { usageText } from '../usage.ts';

const OPTIONS = {
  root: { ...REGISTRY_OPTIONS.root, help: 'data directory / install root (default: the app data directory, or SANDBOX_PACKS_ROOT)' },
  registry: { ...REGISTRY_OPTIONS.registry, help: 'registry a fresh root remembers for later installs (default: npmjs)' },
  json: { kind: 'boolean', help: 'print the report as JSON' },
} as const;

const USAGE = usageText({
  synopsis: 'first-run',
  about: [
    'Installs the shipped packs from the bundled tarballs (no network) and saves the example',
    'workflow, once per data directory. A directory that already has installs is left alone.',
  ],
  options: OPTIONS,
});

export const firstRun: CliCommand = {
  name: 'first-run',
  summary: 'Seed a data directory with the shipped packs and the example workflow',
  options: OPTIONS,
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCliArgs(args, OPTIONS, { positionals: false });
    const json = values.json;
    const registry = registryOf(values.registry);
    const dataDir = rootOf(values.root, io);
    const report = await seedDataDir(dataDir, { ...(registry ? { registry } : {}), onProgress: json ? undefined : (m) => io.out(m) });
    if (!report.ok) {
      io.err(`${report.code}: ${report.message}`);
      return EXIT.failed;
    }
    if (json) io.out(JSON.stringify(report.value));
    else if (report.value.state === 'done')
      io.out(
        `Seeded ${dataDir}: ${report.value.installed.length} pack(s) installed${report.value.workflow ? `, workflow "${report.value.workflow}" saved` : ''}.`,
      );
    else io.out(report.value.state === 'skipped' ? `${dataDir} already holds installs; nothing was seeded.` : `${dataDir} was already seeded.`);
    return EXIT.ok;
  },
};
