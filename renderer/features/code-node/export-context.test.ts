import { describe, expect, it } from 'vitest';
import { importBindings, importsSpecifier, localNameFor, memberContext, openNamedImport, withImportLine } from './export-context.ts';

describe('importBindings', () => {
  it('finds default and namespace bindings, alone and combined with named imports', () => {
    const code = [
      'import Papa from "@nodetool-ai/sandbox-csv";',
      "import * as yaml from '@nodetool-ai/sandbox-yaml';",
      'import dayjs, { extend } from "@x/dates";',
      'import { load } from "@x/only-named";',
      'import d2, * as ns from "@x/both";',
    ].join('\n');
    expect(Object.fromEntries(importBindings(code))).toEqual({
      Papa: { specifier: '@nodetool-ai/sandbox-csv', kind: 'default' },
      yaml: { specifier: '@nodetool-ai/sandbox-yaml', kind: 'namespace' },
      dayjs: { specifier: '@x/dates', kind: 'default' },
      d2: { specifier: '@x/both', kind: 'default' },
      ns: { specifier: '@x/both', kind: 'namespace' },
    });
  });
});

describe('memberContext', () => {
  it('reads `name.partial` and nothing deeper or inside a string', () => {
    expect(memberContext('const r = Papa.')).toEqual({ object: 'Papa', typed: '' });
    expect(memberContext('return Papa.pa')).toEqual({ object: 'Papa', typed: 'pa' });
    expect(memberContext('a.b.c')).toBeUndefined();
    expect(memberContext('"x".')).toBeUndefined();
    expect(memberContext('return Papa')).toBeUndefined();
  });
});

describe('openNamedImport', () => {
  it('is an unfinished `import {` with no `} from` after it', () => {
    expect(openNamedImport('import { d', '')).toEqual({ typed: 'd', already: [], closed: false });
    expect(openNamedImport('import { load, d', ' }')).toEqual({ typed: 'd', already: ['load'], closed: true });
    expect(openNamedImport('import { d', ' } from "@x/y";')).toBeUndefined();
    expect(openNamedImport('import { a as b', '')).toBeUndefined();
    expect(openNamedImport('const { d', '')).toBeUndefined();
  });
});

describe('the import line the picker adds', () => {
  it('names the binding after the module, never clashing with the code', () => {
    expect(localNameFor('@nodetool-ai/sandbox-csv', '')).toBe('csv');
    expect(localNameFor('@nodetool-ai/sandbox-geo/simplify-wasm', '')).toBe('simplifyWasm');
    expect(localNameFor('left-pad', 'const leftPad = 1;')).toBe('leftPad2');
    expect(localNameFor('@x/delete', '')).toBe('deleteModule');
    expect(localNameFor('@x/3d', '')).toBe('_3d');
  });

  it('imports the default export, else the namespace, after the leading imports; once', () => {
    const csv = { specifier: '@nodetool-ai/sandbox-csv', exports: ['default'] };
    const geo = { specifier: '@acme/geo', exports: ['haversine'] };
    expect(withImportLine('return 1;', csv)).toBe('import csv from "@nodetool-ai/sandbox-csv";\nreturn 1;');
    expect(withImportLine('import a from "a";\nimport {\n  b,\n} from "b";\n\nreturn 1;', geo)).toBe(
      'import a from "a";\nimport {\n  b,\n} from "b";\nimport * as geo from "@acme/geo";\n\nreturn 1;',
    );
    const once = withImportLine('return 1;', csv);
    expect(withImportLine(once, csv)).toBe(once);
    expect(importsSpecifier('import "@acme/geo";', '@acme/geo')).toBe(true);
    expect(importsSpecifier('import x from "@acme/geo/sub";', '@acme/geo')).toBe(false);
  });
});
