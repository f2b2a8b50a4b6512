// `sandbox-packs explain [CODE]`: the general sentence for a failure code (shared/protocol/codes.ts,
// the same text the UI shows as the tooltip of a failure's code), or every code with its sentence.
import { ERROR_CODE_LIST, explain as explainCode, isErrorCode } from '../../../shared/protocol/codes.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';
import { parseCliArgs } from '../args.ts';
import { usageText } from '../usage.ts';

const OPTIONS = { json: { kind: 'boolean', help: 'print { code: sentence, … }' } } as const;

export const explain: CliCommand = {
  name: 'explain',
  summary: 'Say what a failure code means (all codes without one)',
  options: OPTIONS,
  usage: usageText({
    synopsis: 'explain [CODE]',
    about: ['Prints the general sentence for CODE (for example `timeout` or `trust-required`); without CODE, every code.'],
    options: OPTIONS,
  }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    if (positionals.length > 1) throw new UsageError('Give at most one CODE.');
    const [code] = positionals;
    if (code !== undefined && !isErrorCode(code))
      throw new UsageError(`There is no failure code ${JSON.stringify(code)}; \`sandbox-packs explain\` lists them all.`);
    const codes = code !== undefined ? [code] : ERROR_CODE_LIST;
    if (values.json) io.out(JSON.stringify(Object.fromEntries(codes.map((c) => [c, explainCode(c)]))));
    else if (code !== undefined) io.out(explainCode(code));
    else io.out(codes.map((c) => `${c}  ${explainCode(c)}`).join('\n'));
    return EXIT.ok;
  },
};
