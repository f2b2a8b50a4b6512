// `sandbox-packs explain [CODE]`: the general sentence for a failure code (shared/protocol/codes.ts,
// the same text the UI shows as the tooltip of a failure's code), or every code with its sentence.
import { ERROR_CODE_LIST, explain as explainCode, isErrorCode } from '../../../shared/protocol/codes.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';
import { parseCliArgs } from '../args.ts';

export const explain: CliCommand = {
  name: 'explain',
  summary: 'Say what a failure code means (all codes without one)',
  usage:
    'Usage: sandbox-packs explain [CODE] [--json]\n\nPrints the general sentence for CODE (for example `timeout` or `trust-required`); without CODE, every code.\n  --json  print { code: sentence, … }',
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { json: 'boolean' });
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
