// `sandbox-packs explain` prints the closed code set's own sentences, and refuses a code outside it.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_CODE_LIST } from '../../../shared/protocol/codes.ts';
import { EXIT } from '../command.ts';
import { main } from '../main.ts';

async function capture(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, cwd: process.cwd() });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('sandbox-packs explain', () => {
  it('prints the sentence of one code, and every code without one', async () => {
    expect(await capture(['explain', 'trust-required'])).toEqual({
      code: EXIT.ok,
      out: 'This pack needs your trust before it can run scripts or host code.',
      err: '',
    });
    const all = await capture(['explain', '--json']);
    expect(JSON.parse(all.out)).toEqual(ERROR_CODES);
    expect((await capture(['explain'])).out.split('\n')).toHaveLength(ERROR_CODE_LIST.length);
  });

  it('explains runtime-error: what it means, where the line is, common causes', async () => {
    const run = await capture(['explain', 'runtime-error']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.out).not.toBe('The code threw an error.');
    for (const part of [
      'rejected',
      '(line L, column C)',
      'editor marks',
      'in MODULE, line L',
      'null or undefined',
      'not a function',
      'not defined',
      'setTimeout',
    ])
      expect(run.out).toContain(part);
  });

  it('refuses an unknown code as bad usage', async () => {
    const run = await capture(['explain', 'made-up']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.err.split('\n')[0]).toBe('There is no failure code "made-up"; `sandbox-packs explain` lists them all.');
  });
});
