// `sandbox-packs first-run`: seeds a data directory with the packs the app ships and the example
// workflow, the same step the app and `serve` take on the default data directory. Useful for a
// root given with --root (which the app never seeds on its own) and for checking a bundle.

import { seedDataDir } from '../../first-run/index.ts';
import { resolveRoot } from '../../validation/root-catalog.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';

const USAGE = [
  'Usage: sandbox-packs first-run [--root DIR] [--registry URL] [--json]',
  '',
  'Installs the shipped packs from the bundled tarballs (no network) and saves the example',
  'workflow, once per data directory. A directory that already has installs is left alone.',
  '',
  'Options:',
  '  --root DIR      data directory / install root (default: the app data directory, or SANDBOX_PACKS_ROOT)',
  '  --registry URL  registry a fresh root remembers for later installs (default: npmjs)',
  '  --json          print the report as JSON',
].join('\n');

export const firstRun: CliCommand = {
  name: 'first-run',
  summary: 'Seed a data directory with the shipped packs and the example workflow',
  usage: USAGE,
  async run(args, io) {
    let root: string | undefined;
    let registry: string | undefined;
    let json = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (arg === '--json') json = true;
      else if (arg === '--root' || arg === '--registry') {
        const value = args[++i];
        if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value.`);
        if (arg === '--root') root = value;
        else registry = value;
      } else throw new UsageError(`Unknown option "${arg}".`);
    }
    const dataDir = resolveRoot(root, io);
    const report = await seedDataDir(dataDir, { ...(registry ? { registry } : {}), onProgress: json ? undefined : (m) => io.out(m) });
    if (!report.ok) {
      io.err(`${report.code}: ${report.message}`);
      return EXIT.failed;
    }
    if (json) io.out(JSON.stringify(report.value));
    else if (report.value.state === 'done') io.out(`Seeded ${dataDir}: ${report.value.installed.length} pack(s) installed${report.value.workflow ? `, workflow "${report.value.workflow}" saved` : ''}.`);
    else io.out(report.value.state === 'skipped' ? `${dataDir} already holds installs; nothing was seeded.` : `${dataDir} was already seeded.`);
    return EXIT.ok;
  },
};
