// `sandbox-packs check [DIR]`: for pack authors. Runs on a working folder what the app does after
// installing the published pack (electron/authoring/pack-check.ts) and prints the report; exit 0
// only when nothing in it would hurt a user of the pack, so a pack's CI can run it as is.

import path from 'node:path';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { checkText } from '../../authoring/check-text.ts';
import { checkPack } from '../../authoring/pack-check.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';
import { parseCliArgs, registryOf } from '../args.ts';
import { usageText } from '../usage.ts';

const OPTIONS = {
  registry: { kind: 'string', value: 'URL', help: "registry the pack's dependencies are installed from (default: npm's public registry)" },
  'no-examples': { kind: 'boolean', help: 'do not run SKILL.md examples' },
  json: { kind: 'boolean', help: 'print the report as JSON' },
} as const;

const USAGE = usageText({
  synopsis: 'check [DIR]',
  about: [
    'Checks the pack in DIR (default: the current folder) the way the app will see it once published:',
    'npm pack (respecting "files" and .npmignore), install of that tarball into a temporary root with',
    'scripts off, discovery with the admission probe, then every fenced js example in SKILL.md that',
    'imports the pack, run in the sandbox; a "// → JSON" comment at a line end asserts that line\'s value.',
  ],
  options: OPTIONS,
  footer: ['Exit status: 0 the check passed, 1 it found problems or the pack could not be packed or installed, 2 bad usage.'],
});

export const check: CliCommand = {
  name: 'check',
  summary: 'Check a pack folder the way the app will see it once published (for pack authors)',
  options: OPTIONS,
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    if (positionals.length > 1) throw new UsageError('Give at most one DIR.');
    const registry = registryOf(values.registry);
    const dir = path.resolve(io.cwd, positionals[0] ?? '.');
    const json = values.json;
    const result = await checkPack({
      dir,
      ...(registry ? { registry } : {}),
      examples: !values['no-examples'],
      ...(json ? {} : { onProgress: (line: string) => io.err(`[check] ${line}`) }),
    });
    if (!result.ok) {
      if (json) io.out(JSON.stringify({ ok: false, code: result.code, message: result.message }));
      else io.err(`${result.code}: ${displayText(result.message)}`);
      return result.code === 'usage' ? EXIT.usage : EXIT.failed;
    }
    io.out(json ? JSON.stringify(result.value, null, 2) : checkText(result.value));
    return result.value.ok ? EXIT.ok : EXIT.failed;
  },
};
