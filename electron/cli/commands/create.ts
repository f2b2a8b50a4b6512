// `sandbox-packs create DIR`: scaffold a working pack (electron/authoring/scaffold.ts) that passes
// `sandbox-packs check` as written, and say what to do next.

import path from 'node:path';
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
    'sandbox/index.js, and a SKILL.md with one checked example per export. Then edit, run',
    '`sandbox-packs check DIR`, and `npm publish`.',
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
    const rel = positionals[0] as string;
    const lines = [`Created ${displayText(v.name)} in ${displayText(v.dir)}:`, ...v.files.map((f) => `  ${f}`), ''];
    if (v.wasmBuilt === false) lines.push(`No AssemblyScript compiler here: run \`npm install && npm run build\` in ${rel} to build wasm/math.wasm first.`);
    lines.push('Next:', `  edit sandbox/index.js and SKILL.md`, `  sandbox-packs check ${rel}`, `  npm publish ${rel}`);
    io.out(displayText(lines.join('\n'), { multiline: true }));
    return EXIT.ok;
  },
};
