// The committed guest text must be exactly what the guest source builds to, and the build must
// refuse a source whose stripped text would not be the same code, or a web piece that takes a name
// its part does not give it. The web pieces' lint block gives `/* exported */` its meaning.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { compiled as untyped, webPart as untypedWebPart } from './build-guest.mjs';

const compiled = untyped as (source: string, name: string) => string;
const webPart = untypedWebPart as (part: string, pieces: string[], read: (file: string) => string) => string;

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

  describe('web parts', () => {
    const pieces: Record<string, string> = {
      'common.js': "/* global W */\n/* exported I */\n'use strict';\nconst I = W.I;",
      'api.js': "/* global I, need */\n'use strict';\nreturn I.freeze({ need });",
      'stray.js': "/* global I, later */\n'use strict';\nreturn later(I);",
      'loose.js': '/* global I */\nreturn I;',
    };
    const read = (file: string): string => pieces[file] ?? '';

    it("is one function of the part's scope, its pieces in order, strict once", () => {
      expect(webPart('demo', ['common.js', 'api.js'], read)).toBe(
        "(function (W, need) {\n'use strict';\n\n\n\nconst I = W.I;\n\n\nreturn I.freeze({ need });\n})",
      );
    });

    it('refuses a piece that takes a name no earlier piece of the part exports', () => {
      expect(() => webPart('demo', ['common.js', 'stray.js'], read)).toThrow(
        "demo part: web/stray.js takes later, which neither the part's scope nor an earlier piece (common.js) exports",
      );
    });

    it("refuses a piece that does not open with 'use strict'", () => {
      expect(() => webPart('demo', ['common.js', 'loose.js'], read)).toThrow("web/loose.js: a piece opens with the 'use strict' directive");
    });

    it('lints a piece with its top-level return; /* exported */ marks what later pieces take, and must name a declaration', async () => {
      const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });
      const lint = async (text: string) => {
        const [result] = await eslint.lintText(text, { filePath: 'shared/sandbox/guest/web/example.js' });
        return result?.messages.map((m) => `${m.ruleId}: ${m.message}`);
      };
      expect(await lint("/* global W */\n/* exported given */\n'use strict';\nconst given = W.x;\nreturn given;\n")).toEqual([]);
      expect(await lint("/* global W */\n'use strict';\nconst given = W.x;\nreturn 1;\n")).toEqual([
        "no-unused-vars: 'given' is assigned a value but never used. Allowed unused vars must match /^_/u.",
      ]);
      expect(await lint("/* global W */\n/* exported missing */\n'use strict';\nreturn W;\n")).toEqual([
        "guest/exported: 'missing' is listed in /* exported */ but not declared at this piece's top level.",
      ]);
      expect(await lint("'use strict';\nreturn DOMException;\n")).toEqual(["no-undef: 'DOMException' is not defined."]);
    }, 60_000);
  });
});
