// Every option a command's --help lists goes through that command's real parser (main, the way a
// user types it): none is refused as unknown, a VALUE option takes a value and a flag takes none.
// Each command is stopped by a usage mistake placed after the options, so nothing runs.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from './commands/index.ts';
import { EXIT } from './command.ts';
import { main } from './main.ts';

/** What stops each command with a usage error once its options are parsed. */
const STOP: Record<string, readonly string[]> = {
  discover: ['extra'],
  install: [],
  uninstall: [],
  update: [],
  trust: [],
  untrust: [],
  rebuild: [],
  list: ['extra'],
  search: ['--registry', 'ftp://nowhere/'],
  serve: ['extra'],
  mcp: ['extra'],
  run: [],
  validate: [],
  'first-run': ['extra'],
  create: [],
  check: ['a', 'b'],
  explain: ['a', 'b'],
};

/** `--name` and whether the help gives it a VALUE (an upper-case placeholder or @scope/name). */
function helpListed(usage: string): Map<string, boolean> {
  const options = new Map<string, boolean>();
  for (const match of usage.matchAll(/(?<![\w-])--([a-z][a-z-]*)(?:[ =]([A-Z@][\w@/=|.…-]*))?/g)) {
    const name = match[1] as string;
    options.set(name, (options.get(name) ?? false) || match[2] !== undefined);
  }
  return options;
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sp-help-options-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const err: string[] = [];
  const code = await main(argv, { out: () => {}, err: (t) => err.push(t), env: { SANDBOX_PACKS_ROOT: root }, cwd: root });
  return { code, first: err.join('\n').split('\n')[0] ?? '' };
}

describe("every command's help-listed options", () => {
  it('has a stop for every command', () => {
    expect(COMMANDS.map((c) => c.name).sort()).toEqual(Object.keys(STOP).sort());
  });

  for (const command of COMMANDS) {
    it(`${command.name}: each option in its usage is accepted by its parser`, async () => {
      const listed = helpListed(command.usage);
      expect(listed.size).toBeGreaterThan(0);
      for (const [name, takesValue] of listed) {
        const run = await cli([command.name, `--${name}`, ...(takesValue ? ['x'] : []), ...(STOP[command.name] ?? [])]);
        expect({ option: name, code: run.code, refused: /^Unknown option|takes no value\.$|needs a value\.$/.test(run.first) }).toEqual({
          option: name,
          code: EXIT.usage,
          refused: false,
        });
      }
      expect(await readdir(root)).toEqual([]);
    });

    it(`${command.name}: its usage lists exactly the options it declares, with their kinds`, () => {
      const listed = helpListed(command.usage);
      const declared = new Map(Object.entries(command.options).map(([name, option]) => [name, option.kind !== 'boolean']));
      expect(listed).toEqual(declared);
    });
  }
});
