// The committed guest text must be exactly what the guest source builds to, and the build must
// refuse a source whose stripped text would not be the same code.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { compiled as untyped } from './build-guest.mjs';

const compiled = untyped as (source: string, name: string) => string;

const run = promisify(execFile);
const root = new URL('..', import.meta.url);

describe('scripts/build-guest.mjs', () => {
  it('rebuilds the committed guest-sources.generated.ts byte for byte', async () => {
    const { stdout } = await run(process.execPath, ['scripts/build-guest.mjs', '--check'], { cwd: root });
    expect(stdout.trim()).toBe('ok    shared/sandbox/guest/guest-sources.generated.ts');
  }, 60_000);

  it('strips comment lines, blank lines and indentation, and keeps each line break between code', () => {
    const source = ['// why', '(function () {', "  'use strict';", '', '  // more why', '  const a = 1;', '  return a;', '})'].join('\n');
    expect(compiled(source, 'example.js')).toBe(['(function () {', "'use strict';", 'const a = 1;', 'return a;', '})'].join('\n'));
  });

  it('refuses a source whose text would change: a multi-line template literal', () => {
    const source = ['(function () {', '  return `one', '  two`;', '})'].join('\n');
    expect(() => compiled(source, 'example.js')).toThrow('example.js: compacting changed the code; move a comment or a multi-line literal');
  });

  it('refuses a source that does not parse, naming the file', () => {
    expect(() => compiled('(function () {', 'broken.js')).toThrow(/^broken\.js: Unexpected token/);
  });
});
