// The compatibility corpus (issue 27): popular pure-JS libraries people reach for in a data
// sandbox, each pinned to an exact version and given a one-line smoke test that checks a real
// result. `npm run bench -- corpus` installs each as a config-only pack through the real installer,
// runs its smoke test through code.run and in bare quickjs-ng, and writes docs/compatibility.md;
// the offline subset in the test suite (electron/compiler/corpus-offline.test.ts) runs a few of
// the same entries from committed tarballs.
//
// Invariant: each smoke test checks what the library is for, on a small input, with values
// computed independently (by running the same test on Node).

/** Stands for the module specifier in a smoke test's import lines. */
export const LIB = 'LIB';

/**
 * A smoke test is the import lines of a Code node (`LIB` stands for the module's specifier: the
 * pack's in the product, the library's own in bare quickjs-ng) and the body after them, which
 * returns a JSON value compared with `expect`.
 */
export interface SmokeTest {
  /** Import lines; `from LIB` is replaced with the specifier. */
  readonly imports: string;
  /** The rest of the Code node's body (an async function body): returns the value checked. */
  readonly body: string;
  /** The value the body returns, as JSON (compared ignoring key order). */
  readonly expect: unknown;
}

export interface CorpusLibrary {
  /** The npm package. */
  readonly name: string;
  /** Pinned exactly: the pack depends on this version and nothing else. */
  readonly version: string;
  /** A subpath export the pack's module names (`"npm": "<name>/<subpath>"`), when the package is used that way. */
  readonly subpath?: string;
  /** What people use it for (the table's grouping). */
  readonly area: string;
  readonly license: string;
  readonly smoke: SmokeTest;
}

/** The manifest's `npm` field for a library: the package, or its subpath export. */
export function npmField(lib: CorpusLibrary): string {
  return lib.subpath ? `${lib.name}/${lib.subpath}` : lib.name;
}

/** The config-only pack that carries a library: `@sp-corpus/<name without scope, "/" → "-">`. */
export function corpusPackName(lib: CorpusLibrary): string {
  return `@sp-corpus/${lib.name.replace(/^@/, '').replace('/', '-')}`;
}

const s = (imports: string, body: string, expect: unknown): SmokeTest => ({ imports, body, expect });

export const CORPUS: readonly CorpusLibrary[] = [
  // Dates
  {
    name: 'date-fns',
    version: '4.4.0',
    area: 'dates',
    license: 'MIT',
    smoke: s('import { addDays, format } from LIB;', 'return format(addDays(new Date(2024, 0, 30), 3), "yyyy-MM-dd");', '2024-02-02'),
  },
  {
    name: 'dayjs',
    version: '1.11.23',
    area: 'dates',
    license: 'MIT',
    smoke: s('import dayjs from LIB;', 'return dayjs("2024-01-30").add(3, "day").format("YYYY-MM-DD");', '2024-02-02'),
  },
  {
    name: 'luxon',
    version: '3.7.2',
    area: 'dates',
    license: 'MIT',
    smoke: s('import { DateTime } from LIB;', 'return DateTime.fromISO("2024-01-30", { zone: "utc" }).plus({ days: 3 }).toISODate();', '2024-02-02'),
  },
  {
    name: 'moment',
    version: '2.31.0',
    area: 'dates',
    license: 'MIT',
    smoke: s('import moment from LIB;', 'return moment.utc("2024-01-30").add(3, "days").format("YYYY-MM-DD");', '2024-02-02'),
  },
  {
    name: 'chrono-node',
    version: '2.10.3',
    area: 'dates',
    license: 'MIT',
    smoke: s(
      'import { parseDate } from LIB;',
      'const d = parseDate("March 3rd 2024 at 5pm"); return [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours()];',
      [2024, 3, 3, 17],
    ),
  },
  // Data formats
  {
    name: 'js-yaml',
    version: '5.5.0',
    area: 'YAML',
    license: 'MIT',
    smoke: s('import { load } from LIB;', 'return load("a: 1\\nb: [x, 2]\\n");', { a: 1, b: ['x', 2] }),
  },
  {
    name: 'yaml',
    version: '2.9.1',
    area: 'YAML',
    license: 'ISC',
    smoke: s('import { parse } from LIB;', 'return parse("a: 1\\nb: [x, 2]\\n");', { a: 1, b: ['x', 2] }),
  },
  {
    name: 'smol-toml',
    version: '1.9.1',
    area: 'TOML',
    license: 'BSD-3-Clause',
    smoke: s('import { parse } from LIB;', 'return parse("a = 1\\n[t]\\nb = \\"x\\"\\n");', { a: 1, t: { b: 'x' } }),
  },
  {
    name: '@iarna/toml',
    version: '3.0.0',
    area: 'TOML',
    license: 'ISC',
    smoke: s('import { parse } from LIB;', 'return parse("a = 1\\n[t]\\nb = \\"x\\"\\n");', { a: 1, t: { b: 'x' } }),
  },
  { name: 'ini', version: '7.0.0', area: 'INI', license: 'ISC', smoke: s('import { parse } from LIB;', 'return parse("[s]\\nk = v\\n");', { s: { k: 'v' } }) },
  {
    name: 'json5',
    version: '2.2.3',
    area: 'JSON5',
    license: 'MIT',
    smoke: s('import JSON5 from LIB;', 'return JSON5.parse("{a: 1, b: \'x\', /* note */ c: [1,],}");', { a: 1, b: 'x', c: [1] }),
  },
  {
    name: 'csv-parse',
    version: '7.0.3',
    subpath: 'browser/esm/sync',
    area: 'CSV',
    license: 'MIT',
    smoke: s('import { parse } from LIB;', 'return parse("a,b\\n1,2\\n", { columns: true });', [{ a: '1', b: '2' }]),
  },
  {
    name: 'papaparse',
    version: '5.7.1',
    area: 'CSV',
    license: 'MIT',
    smoke: s('import Papa from LIB;', 'return Papa.parse("a,b\\n1,2", { header: true }).data;', [{ a: '1', b: '2' }]),
  },
  {
    name: 'd3-dsv',
    version: '3.0.2',
    area: 'CSV',
    license: 'ISC',
    smoke: s('import { csvParse } from LIB;', 'return csvParse("a,b\\n1,2\\n").map((row) => ({ ...row }));', [{ a: '1', b: '2' }]),
  },
  {
    name: 'fast-xml-parser',
    version: '5.12.1',
    area: 'XML',
    license: 'MIT',
    smoke: s('import { XMLParser } from LIB;', 'return new XMLParser().parse("<a><b>1</b><c>x</c></a>");', { a: { b: 1, c: 'x' } }),
  },
  // Markdown
  {
    name: 'marked',
    version: '18.2.1',
    area: 'markdown',
    license: 'MIT',
    smoke: s('import { marked } from LIB;', 'return marked.parse("# Hi\\n\\n*x*");', '<h1>Hi</h1>\n<p><em>x</em></p>\n'),
  },
  {
    name: 'markdown-it',
    version: '15.0.3',
    area: 'markdown',
    license: 'MIT',
    smoke: s('import MarkdownIt from LIB;', 'return new MarkdownIt().render("# Hi\\n\\n*x*");', '<h1>Hi</h1>\n<p><em>x</em></p>\n'),
  },
  // Validation
  {
    name: 'zod',
    version: '4.6.7',
    area: 'validation',
    license: 'MIT',
    smoke: s(
      'import { z } from LIB;',
      'const schema = z.object({ n: z.number().min(1) }); return [schema.parse({ n: 2 }).n, schema.safeParse({ n: 0 }).success];',
      [2, false],
    ),
  },
  {
    name: 'valibot',
    version: '1.5.0',
    area: 'validation',
    license: 'MIT',
    smoke: s(
      'import * as v from LIB;',
      'const schema = v.object({ n: v.pipe(v.number(), v.minValue(1)) }); return [v.parse(schema, { n: 2 }).n, v.safeParse(schema, { n: 0 }).success];',
      [2, false],
    ),
  },
  {
    name: 'ajv',
    version: '8.20.0',
    area: 'validation',
    license: 'MIT',
    smoke: s(
      'import Ajv from LIB;',
      'const validate = new Ajv().compile({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }); return [validate({ n: 1 }), validate({})];',
      [true, false],
    ),
  },
  {
    name: 'superstruct',
    version: '2.0.2',
    area: 'validation',
    license: 'MIT',
    smoke: s('import { is, number, object } from LIB;', 'const schema = object({ n: number() }); return [is({ n: 1 }, schema), is({ n: "x" }, schema)];', [
      true,
      false,
    ]),
  },
  {
    name: 'yup',
    version: '1.7.1',
    area: 'validation',
    license: 'MIT',
    smoke: s(
      'import { number, object } from LIB;',
      'const schema = object({ n: number().required() }); return [schema.isValidSync({ n: 1 }), schema.isValidSync({})];',
      [true, false],
    ),
  },
  // Diff and patch
  {
    name: 'diff',
    version: '9.0.0',
    area: 'diff',
    license: 'BSD-3-Clause',
    smoke: s('import { diffWords } from LIB;', 'return diffWords("a b c", "a x c").map((p) => [p.added ? "+" : p.removed ? "-" : "=", p.value]);', [
      ['=', 'a '],
      ['-', 'b'],
      ['+', 'x'],
      ['=', ' c'],
    ]),
  },
  {
    name: 'fast-json-patch',
    version: '3.1.1',
    area: 'diff',
    license: 'MIT',
    smoke: s('import jsonpatch from LIB;', 'return jsonpatch.applyPatch({ a: 1 }, [{ op: "add", path: "/b", value: 2 }]).newDocument;', { a: 1, b: 2 }),
  },
  // Statistics and numbers
  {
    name: 'simple-statistics',
    version: '7.12.1',
    area: 'statistics',
    license: 'ISC',
    smoke: s(
      'import { mean, median, standardDeviation } from LIB;',
      'return [mean([1, 2, 3, 4]), median([1, 2, 3, 4]), standardDeviation([2, 4, 4, 4, 5, 5, 7, 9])];',
      [2.5, 2.5, 2],
    ),
  },
  {
    name: 'd3-array',
    version: '3.2.5',
    area: 'statistics',
    license: 'ISC',
    smoke: s('import { extent, sum } from LIB;', 'return [extent([3, 1, 2]), sum([1, 2, 3])];', [[1, 3], 6]),
  },
  {
    name: 'decimal.js',
    version: '10.6.0',
    area: 'numbers',
    license: 'MIT',
    smoke: s('import Decimal from LIB;', 'return new Decimal("0.1").plus("0.2").toString();', '0.3'),
  },
  {
    name: 'mathjs',
    version: '15.2.0',
    area: 'numbers',
    license: 'Apache-2.0',
    smoke: s('import { evaluate } from LIB;', 'return evaluate("sqrt(16) + 2 * 3");', 10),
  },
  // Search
  {
    name: 'fuse.js',
    version: '7.5.0',
    area: 'search',
    license: 'Apache-2.0',
    smoke: s('import Fuse from LIB;', 'return new Fuse(["apple", "banana", "cherry"]).search("banan").map((r) => r.item);', ['banana']),
  },
  {
    name: 'minisearch',
    version: '7.2.0',
    area: 'search',
    license: 'MIT',
    smoke: s(
      'import MiniSearch from LIB;',
      'const index = new MiniSearch({ fields: ["t"] }); index.addAll([{ id: 1, t: "red apple" }, { id: 2, t: "green pear" }]); return index.search("apple").map((r) => r.id);',
      [1],
    ),
  },
  // Colours
  {
    name: 'chroma-js',
    version: '3.2.0',
    area: 'colours',
    license: '(BSD-3-Clause AND Apache-2.0)',
    smoke: s('import chroma from LIB;', 'return chroma.mix("red", "blue", 0.5, "rgb").hex();', '#800080'),
  },
  {
    name: 'tinycolor2',
    version: '1.6.0',
    area: 'colours',
    license: 'MIT',
    smoke: s('import tinycolor from LIB;', 'return tinycolor("red").lighten(10).toHexString();', '#ff3333'),
  },
  {
    name: 'colord',
    version: '2.13.0',
    area: 'colours',
    license: 'MIT',
    smoke: s('import { colord } from LIB;', 'return colord("#ff0000").toHsl();', { h: 0, s: 100, l: 50, a: 1 }),
  },
  // Templating
  {
    name: 'mustache',
    version: '4.2.0',
    area: 'templating',
    license: 'MIT',
    smoke: s('import Mustache from LIB;', 'return Mustache.render("Hi {{name}}!", { name: "Ada" });', 'Hi Ada!'),
  },
  {
    name: 'handlebars',
    version: '4.7.10',
    area: 'templating',
    license: 'MIT',
    smoke: s('import Handlebars from LIB;', 'return Handlebars.compile("Hi {{name}}!")({ name: "Ada" });', 'Hi Ada!'),
  },
  {
    name: 'liquidjs',
    version: '10.30.1',
    area: 'templating',
    license: 'MIT',
    smoke: s('import { Liquid } from LIB;', 'return await new Liquid().parseAndRender("Hi {{ name | upcase }}!", { name: "Ada" });', 'Hi ADA!'),
  },
  // Utilities
  {
    name: 'lodash-es',
    version: '4.18.1',
    area: 'utilities',
    license: 'MIT',
    smoke: s('import { groupBy } from LIB;', 'return groupBy([1.2, 1.5, 2.1], Math.floor);', { 1: [1.2, 1.5], 2: [2.1] }),
  },
  {
    name: 'ramda',
    version: '0.32.0',
    area: 'utilities',
    license: 'MIT',
    smoke: s('import * as R from LIB;', 'return R.pipe(R.map((x) => x * 2), R.sum)([1, 2, 3]);', 12),
  },
  {
    name: 'immer',
    version: '11.2.10',
    area: 'utilities',
    license: 'MIT',
    smoke: s(
      'import { produce } from LIB;',
      'const a = { list: [1] }; const b = produce(a, (draft) => { draft.list.push(2); }); return [a.list.length, b.list, a === b];',
      [1, [1, 2], false],
    ),
  },
  {
    name: 'change-case',
    version: '5.4.4',
    area: 'text',
    license: 'MIT',
    smoke: s('import { camelCase, snakeCase } from LIB;', 'return [camelCase("hello big world"), snakeCase("helloBigWorld")];', [
      'helloBigWorld',
      'hello_big_world',
    ]),
  },
  {
    name: 'slugify',
    version: '1.6.9',
    area: 'text',
    license: 'MIT',
    smoke: s('import slugify from LIB;', 'return slugify("Hello World & Friends", { lower: true });', 'hello-world-and-friends'),
  },
  {
    name: 'pluralize',
    version: '8.0.0',
    area: 'text',
    license: 'MIT',
    smoke: s('import pluralize from LIB;', 'return [pluralize("person"), pluralize("box", 2, true)];', ['people', '2 boxes']),
  },
  {
    name: 'he',
    version: '2.0.0',
    area: 'text',
    license: 'MIT',
    smoke: s('import { decode, encode } from LIB;', 'return [decode("&lt;a&gt; &amp; &eacute;"), encode("\\u00e9")];', ['<a> & é', '&#xE9;']),
  },
  {
    name: 'qs',
    version: '6.17.1',
    area: 'text',
    license: 'BSD-3-Clause',
    smoke: s('import qs from LIB;', 'return qs.parse("a[b]=1&c=2");', { a: { b: '1' }, c: '2' }),
  },
  {
    name: 'semver',
    version: '7.8.6',
    area: 'text',
    license: 'ISC',
    smoke: s('import semver from LIB;', 'return [semver.satisfies("1.2.3", "^1.0.0"), semver.inc("1.2.3", "minor")];', [true, '1.3.0']),
  },
  // Queries over JSON
  {
    name: 'jsonata',
    version: '2.2.2',
    area: 'query',
    license: 'MIT',
    smoke: s('import jsonata from LIB;', 'return await jsonata("$sum(items.price)").evaluate({ items: [{ price: 2 }, { price: 3 }] });', 5),
  },
  {
    name: 'jsonpath-plus',
    version: '11.3.0',
    area: 'query',
    license: 'MIT',
    smoke: s('import { JSONPath } from LIB;', 'return JSONPath({ path: "$.a[*].b", json: { a: [{ b: 1 }, { b: 2 }] } });', [1, 2]),
  },
  // Compression and ids
  {
    name: 'pako',
    version: '3.0.3',
    area: 'compression',
    license: '(MIT AND Zlib)',
    smoke: s('import { deflate, inflate } from LIB;', 'return inflate(deflate("hello hello hello"), { toText: true });', 'hello hello hello'),
  },
  {
    name: 'fflate',
    version: '0.8.3',
    area: 'compression',
    license: 'MIT',
    smoke: s(
      'import { gunzipSync, gzipSync, strFromU8, strToU8 } from LIB;',
      'return strFromU8(gunzipSync(gzipSync(strToU8("hello hello hello"))));',
      'hello hello hello',
    ),
  },
  {
    name: 'uuid',
    version: '14.0.3',
    area: 'ids',
    license: 'MIT',
    smoke: s('import { v4, validate, version } from LIB;', 'const id = v4(); return [validate(id), version(id)];', [true, 4]),
  },
  {
    name: 'nanoid',
    version: '6.0.2',
    subpath: 'non-secure',
    area: 'ids',
    license: 'MIT',
    smoke: s('import { nanoid } from LIB;', 'return nanoid(10).length;', 10),
  },
];
