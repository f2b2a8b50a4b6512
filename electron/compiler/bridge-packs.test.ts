// Each bridge pack, installed from the local registry by the real installer, discovered by the
// real catalog with this compiler, and imported by real code in the real sandbox kernel.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { activePackNames } from '../install/index.ts';
import { SandboxPool } from '../runtime/sandbox/sandbox-pool.ts';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import type { RunResult } from '../../shared/protocol/run.ts';
import { installBridgePacks, type BridgeRoot } from '../testing/bridge-pack-harness.ts';
import { createNpmCompiler } from './npm-compiler.ts';

let bridge: BridgeRoot;
let catalog: DiscoveryCatalog;
let pool: SandboxPool;

beforeAll(async () => {
  bridge = await installBridgePacks();
  const opened = await openCatalog({ root: bridge.root, onlyPacks: () => activePackNames(bridge.root), compiler: createNpmCompiler({ root: bridge.root }) });
  if (!opened.ok) throw new Error(opened.message);
  catalog = opened.value;
  pool = new SandboxPool({ size: 1 });
}, 300_000);

afterAll(async () => {
  await pool?.close();
  await bridge?.dispose();
});

async function run(specifier: string, code: string): Promise<RunResult> {
  const resolution = catalog.resolveForExecution([{ specifier }]);
  if (!resolution.ok) throw new Error(`${resolution.code}: ${resolution.message}`);
  return pool.run(toKernelRequest({ code, resolution, timeoutMs: 10_000 }));
}

async function value(specifier: string, code: string): Promise<unknown> {
  const result = await run(specifier, code);
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.value;
}

describe('bridge packs from the local registry', () => {
  it("discovers every bridge pack ready, cheerio included (its entities tables decode with the guest's atob)", () => {
    const byName = Object.fromEntries(catalog.summaries().map((s) => [s.packName, s]));
    for (const name of ['csv', 'yaml', 'xml', 'diff', 'zip', 'html', 'dates', 'validation', 'markdown', 'toml', 'stats']) {
      expect(byName[`@nodetool-ai/sandbox-${name}`]?.status, name).toBe('ready');
    }
  });

  it('sandbox-csv parses and writes CSV (papaparse, default import)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-csv',
        `import Papa from "@nodetool-ai/sandbox-csv";
         const r = Papa.parse("name,age\\nAda,36\\nLin,41\\n", { header: true, dynamicTyping: true, skipEmptyLines: true });
         return { data: r.data, errors: r.errors.length, fields: r.meta.fields, back: Papa.unparse(r.data) };`,
      ),
    ).toEqual({
      data: [
        { name: 'Ada', age: 36 },
        { name: 'Lin', age: 41 },
      ],
      errors: 0,
      fields: ['name', 'age'],
      back: 'name,age\r\nAda,36\r\nLin,41',
    });
  });

  it('sandbox-yaml loads and dumps YAML', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-yaml',
        `import { load, dump } from "@nodetool-ai/sandbox-yaml";
         const doc = load("name: demo\\nitems:\\n  - 1\\n  - two\\nnested: { a: true }\\n");
         return { doc, text: dump({ a: [1, 2], b: "x" }) };`,
      ),
    ).toEqual({ doc: { name: 'demo', items: [1, 'two'], nested: { a: true } }, text: 'a:\n  - 1\n  - 2\nb: x\n' });
  });

  it('sandbox-xml validates, parses and rebuilds an XML file', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-xml',
        `import { XMLParser, XMLBuilder, XMLValidator } from "@nodetool-ai/sandbox-xml";
         const xml = '<catalog><book id="b1"><title>Dune</title><year>1965</year></book><book id="b2"><title>Emma</title><year>1815</year></book></catalog>';
         const options = { ignoreAttributes: false, attributeNamePrefix: "@_" };
         const obj = new XMLParser(options).parse(xml);
         return { valid: XMLValidator.validate(xml), bad: XMLValidator.validate("<a><b></a>") !== true, obj, back: new XMLBuilder(options).build(obj) === xml };`,
      ),
    ).toEqual({
      valid: true,
      bad: true,
      obj: {
        catalog: {
          book: [
            { title: 'Dune', year: 1965, '@_id': 'b1' },
            { title: 'Emma', year: 1815, '@_id': 'b2' },
          ],
        },
      },
      back: true,
    });
  });

  it('sandbox-diff makes a unified patch and applies it', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-diff',
        `import { createTwoFilesPatch, diffLines, applyPatch } from "@nodetool-ai/sandbox-diff";
         const a = "one\\ntwo\\nthree\\n", b = "one\\n2\\nthree\\nfour\\n";
         const patch = createTwoFilesPatch("a.txt", "b.txt", a, b);
         return { changes: diffLines(a, b).map((c) => (c.added ? "+" : c.removed ? "-" : "=") + c.value.trim().replace(/\\n/g, "|")), applied: applyPatch(a, patch) === b, hunk: patch.includes("@@ -1,3 +1,4 @@") };`,
      ),
    ).toEqual({ changes: ['=one', '-two', '+2', '=three', '+four'], applied: true, hunk: true });
  });

  it('sandbox-zip round-trips a zip archive and gzip', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-zip',
        `import { zipSync, unzipSync, strToU8, strFromU8, gzipSync, gunzipSync } from "@nodetool-ai/sandbox-zip";
         const zipped = zipSync({ "hello.txt": strToU8("hello sandbox"), "dir/data.json": strToU8('{"a":1}') }, { level: 6 });
         const back = unzipSync(zipped);
         return { magic: [zipped[0], zipped[1]], names: Object.keys(back).sort(), hello: strFromU8(back["hello.txt"]), json: JSON.parse(strFromU8(back["dir/data.json"])), gz: strFromU8(gunzipSync(gzipSync(strToU8("x".repeat(1000))))).length };`,
      ),
    ).toEqual({ magic: [0x50, 0x4b], names: ['dir/data.json', 'hello.txt'], hello: 'hello sandbox', json: { a: 1 }, gz: 1000 });
  });

  it('sandbox-dates adds, formats and parses dates (date-fns)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-dates',
        `import { addMonths, format, parse, differenceInCalendarDays, isValid } from "@nodetool-ai/sandbox-dates";
         const start = parse("31.01.2024", "dd.MM.yyyy", new Date());
         return { next: format(addMonths(start, 1), "yyyy-MM-dd EEE"), days: differenceInCalendarDays(new Date(2024, 11, 25), start), bad: isValid(parse("2024-13-01", "yyyy-MM-dd", new Date())) };`,
      ),
    ).toEqual({ next: '2024-02-29 Thu', days: 329, bad: false });
  });

  it('sandbox-validation parses good data and reports every issue of bad data (valibot)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-validation',
        `import * as v from "@nodetool-ai/sandbox-validation";
         const Row = v.object({ id: v.pipe(v.number(), v.integer()), email: v.pipe(v.string(), v.email()), tags: v.optional(v.array(v.string()), []) });
         const bad = v.safeParse(Row, { id: 1.5, email: "x" });
         return { good: v.parse(Row, { id: 7, email: "a@b.example", extra: true }), issues: bad.issues.map((i) => v.getDotPath(i)) };`,
      ),
    ).toEqual({ good: { id: 7, email: 'a@b.example', tags: [] }, issues: ['id', 'email'] });
  });

  it('sandbox-markdown renders GitHub-flavoured Markdown and lists its headings (marked)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-markdown',
        `import { parse, lexer } from "@nodetool-ai/sandbox-markdown";
         const md = "# Report\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\n## Notes\\n\\n- [x] done";
         return { html: parse(md).includes("<td>1</td>") && parse(md).includes('type="checkbox"'), headings: lexer(md).filter((t) => t.type === "heading").map((t) => t.text) };`,
      ),
    ).toEqual({ html: true, headings: ['Report', 'Notes'] });
  });

  it('sandbox-toml parses and writes TOML (smol-toml)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-toml',
        `import { parse, stringify } from "@nodetool-ai/sandbox-toml";
         const doc = parse('[package]\\nname = "demo"\\nversion = "0.1.0"\\n\\n[[bin]]\\nname = "a"\\n\\n[[bin]]\\nname = "b"\\n');
         return { doc, back: parse(stringify(doc)) };`,
      ),
    ).toEqual({
      doc: { package: { name: 'demo', version: '0.1.0' }, bin: [{ name: 'a' }, { name: 'b' }] },
      back: { package: { name: 'demo', version: '0.1.0' }, bin: [{ name: 'a' }, { name: 'b' }] },
    });
  });

  it('sandbox-stats summarises numbers and fits a line (simple-statistics)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-stats',
        `import { mean, median, quantile, standardDeviation, linearRegression } from "@nodetool-ai/sandbox-stats";
         const xs = [2, 4, 4, 4, 5, 5, 7, 9];
         return { mean: mean(xs), median: median(xs), q: quantile(xs, [0.25, 0.75]), sd: standardDeviation(xs), fit: linearRegression([[0, 1], [1, 3], [2, 5]]) };`,
      ),
    ).toEqual({ mean: 5, median: 4.5, q: [4, 5.5], sd: 2, fit: { m: 2, b: 1 } });
  });

  it('a pack API that needs a missing global fails at call time with a normal error, not a crash', async () => {
    // jsdiff's callback form schedules with setTimeout, which the sandbox removes (SKILL.md says so).
    const result = await run(
      '@nodetool-ai/sandbox-diff',
      `import { diffLines } from "@nodetool-ai/sandbox-diff";
       diffLines("a\\n", "b\\n", { callback: () => {} });`,
    );
    expect(result.ok ? result : { code: result.code, message: result.message }).toEqual({
      code: 'runtime-error',
      message: expect.stringMatching(/^ReferenceError: setTimeout is not defined/),
    });
  });

  it('sandbox-html parses HTML and answers CSS selectors (cheerio)', async () => {
    expect(
      await value(
        '@nodetool-ai/sandbox-html',
        `import { load } from "@nodetool-ai/sandbox-html";
         const $ = load('<ul id="list"><li class="a">One &amp; two</li><li><a href="/x">Link</a></li></ul>');
         return { items: $("li").map((i, el) => $(el).text()).get(), href: $("#list a").attr("href"), count: $(".a").length };`,
      ),
    ).toEqual({ items: ['One & two', 'Link'], href: '/x', count: 1 });
  });
});
