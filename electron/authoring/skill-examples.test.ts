// How SKILL.md examples become code: which blocks count, how `// →` lines become checks, and that
// problems found before running name the SKILL.md line. The code produced here is run for real
// in pack-check.test.ts.

import { describe, expect, it } from 'vitest';
import { buildEntryModule } from '../../shared/sandbox/kernel/entry-transform.ts';
import { codeBlocks, jsonEqual, prepareExamples, skillLineOf } from './skill-examples.ts';

const SPEC = '@acme/x';
const md = (...lines: string[]): string => lines.join('\n');

describe('codeBlocks', () => {
  it('finds fenced blocks with their fence and first-code lines, ``` and ~~~ alike', () => {
    const blocks = codeBlocks(md('# t', '```js', 'a;', 'b;', '```', 'text', '~~~~ mjs', 'c;', '```', '~~~~'));
    expect(blocks).toEqual([
      { fenceLine: 2, firstLine: 3, info: 'js', code: 'a;\nb;' },
      { fenceLine: 7, firstLine: 8, info: 'mjs', code: 'c;\n```' },
    ]);
  });
});

describe('prepareExamples', () => {
  it('takes only js blocks that import a pack specifier; no-check blocks are listed as skipped', () => {
    const prepared = prepareExamples(
      md(
        '```js',
        `import { a } from "${SPEC}";`,
        'a();',
        '```',
        '```js',
        'other();',
        '```',
        '```ts',
        `import { a } from "${SPEC}";`,
        '```',
        '```js no-check',
        `import { b } from "${SPEC}/sub";`,
        '```',
      ),
      [SPEC, `${SPEC}/sub`],
    );
    expect(prepared.map((p) => [p.kind, p.block.fenceLine, p.specifiers])).toEqual([
      ['run', 1, [SPEC]],
      ['skip', 11, [`${SPEC}/sub`]],
    ]);
  });

  it('wraps the asserted expression, return and one-variable declaration in place, keeping every line where it was', () => {
    const [example] = prepareExamples(
      md('intro', '```js', `import { f } from "${SPEC}";`, 'f(1); // → 2', 'const y = f(2); // => {"a": [1]}', 'return f(3); // → "x"', '```'),
      [SPEC],
    );
    if (example?.kind !== 'run') throw new Error('expected a runnable example');
    expect(example.assertions).toEqual([
      { line: 4, expected: 2, text: '2' },
      { line: 5, expected: { a: [1] }, text: '{"a": [1]}' },
      { line: 6, expected: 'x', text: '"x"' },
    ]);
    const lines = example.program.split('\n');
    expect(lines[1]).toBe('__skillCheck(4, (f(1))); // → 2');
    expect(lines[2]).toBe('const y = __skillCheck(5, (f(2))); // => {"a": [1]}');
    expect(lines[3]).toBe('return __skillCheck(6, (f(3))); // → "x"');
    // The import is blanked on its line and hoisted after the body; the entry transform accepts it.
    expect(lines[0]?.endsWith(' '.repeat(`import { f } from "${SPEC}";`.length))).toBe(true);
    expect(lines.at(-2)).toBe(`import { f } from "${SPEC}";`);
    const entry = buildEntryModule(example.program);
    expect(entry.ok && entry.value.imports.map((i) => i.specifier)).toEqual([SPEC]);
  });

  it('a value after the arrow that is not JSON is example-invalid at its SKILL.md line', () => {
    const [example] = prepareExamples(md('---', 'name: x', '---', '```js', `import { f } from "${SPEC}";`, 'f(); // → { a: 1 }', '```'), [SPEC]);
    expect(example).toMatchObject({
      kind: 'invalid',
      problem: {
        code: 'example-invalid',
        line: 6,
        message: 'SKILL.md line 6: the value after the arrow must be JSON (strings in double quotes, keys quoted), got { a: 1 }.',
      },
    });
  });

  it('an arrow on a line that ends no statement (here: inside a block) is example-invalid', () => {
    const [example] = prepareExamples(md('```js', `import { f } from "${SPEC}";`, 'if (true) {', '  f(); // → 1', '}', '```'), [SPEC]);
    expect(example).toMatchObject({ kind: 'invalid', problem: { code: 'example-invalid', line: 4 } });
  });

  it('an example that does not parse is a syntax-error at its SKILL.md line', () => {
    const [example] = prepareExamples(md('text', '```js', `import { f } from "${SPEC}";`, 'f(;', '```'), [SPEC]);
    expect(example).toMatchObject({ kind: 'invalid', problem: { code: 'syntax-error', line: 4, message: 'SKILL.md line 4: Unexpected token.' } });
  });
});

describe('skillLineOf and jsonEqual', () => {
  it('maps a sandbox "line N, column C" inside the block to SKILL.md; outside the block to nothing', () => {
    const block = { fenceLine: 10, firstLine: 11, info: 'js', code: 'a;\nb;\nc;' };
    expect(skillLineOf('ReferenceError: q is not defined (line 3, column 1)', block)).toBe(13);
    expect(skillLineOf('x (line 4, column 1)', block)).toBeUndefined();
    expect(skillLineOf('no position', block)).toBeUndefined();
    // A position inside a pack's module is not a SKILL.md line.
    expect(skillLineOf('TypeError: x (in @acme/x, line 2, column 9)', block)).toBeUndefined();
    // …but the block's line that called into the module is.
    expect(skillLineOf('TypeError: x (in @acme/x (npm x), line 2, column 9; called from line 2, column 1)', block)).toBe(12);
  });

  it('compares JSON values deeply, ignoring key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
  });
});
