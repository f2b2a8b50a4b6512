// `sandbox-packs create DIR`: scaffold a working pack (electron/authoring/scaffold.ts) that passes
// `sandbox-packs check` as written, and say what to do next.

import path from 'node:path';
import { cliCommandLine, shellWord } from '../cli-self.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { scaffoldPack } from '../../authoring/scaffold.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';
import { parseCliArgs } from '../args.ts';
import { usageText } from '../usage.ts';

const OPTIONS = {
  name: { kind: 'string', value: '@scope/name', help: 'the npm package name (default: the folder name)' },
  wasm: { kind: 'boolean', help: 'also a WASM module: AssemblyScript source (wasm-src/), its build script and the built binary' },
  json: { kind: 'boolean', help: 'print the result as JSON' },
} as const;

const USAGE = usageText({
  synopsis: 'create DIR',
  about: [
    'Writes a new Sandbox Pack into DIR (new or empty): package.json with the "nodetool" manifest,',
    'sandbox/index.js, and a SKILL.md with one checked example per export. Then edit, check the',
    "folder with this CLI's `check DIR`, and `npm publish` it; the output prints each step as a command line.",
  ],
  options: OPTIONS,
});

export const create: CliCommand = {
  name: 'create',
  summary: 'Scaffold a new pack that passes `check` (for pack authors)',
  options: OPTIONS,
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    if (positionals.length !== 1) throw new UsageError('Give exactly one DIR.');
    const result = await scaffoldPack({
      dir: path.resolve(io.cwd, positionals[0] as string),
      ...(values.name !== undefined ? { name: values.name } : {}),
      wasm: values.wasm,
    });
    if (!result.ok) {
      if (values.json) io.out(JSON.stringify({ ok: false, code: result.code, message: result.message }));
      else io.err(`${result.code}: ${displayText(result.message)}`);
      return result.code === 'usage' ? EXIT.usage : EXIT.failed;
    }
    const v = result.value;
    if (values.json) {
      io.out(JSON.stringify({ ok: true, ...v }));
      return EXIT.ok;
    }
    // "./" keeps npm from reading a bare folder name as a package name or a tag.
    const given = positionals[0] as string;
    const rel = shellWord(path.isAbsolute(given) || given.startsWith('.') ? given : `./${given}`);
    const lines = [`Created ${displayText(v.name)} in ${displayText(v.dir)}:`, ...v.files.map((f) => `  ${f}`), ''];
    // Every indented line below runs as printed, from the folder create ran in (create.test.ts runs them).
    lines.push(`Next: edit ${path.join(given, 'sandbox', 'index.js')} and ${path.join(given, 'SKILL.md')}, then run:`);
    if (v.wasmBuilt === false) lines.push(`  (cd ${rel} && npm install && npm run build)`);
    lines.push(`  ${cliCommandLine()} check ${rel}`, `  npm publish ${rel}`);
    lines.push('(check exits 0 when the pack works as users will get it; npm publish needs `npm login` first.)');
    io.out(displayText(lines.join('\n'), { multiline: true }));
    return EXIT.ok;
  },
};
