// The compiler's static verdict on an npm bundle spares discovery a second parse, and only ever for
// the exact bytes it was made for under the same analyzer. The analyzer here is the real one.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decideImport } from '../../shared/sandbox/kernel/loader-policy.ts';
import { ok } from '../../shared/protocol/result.ts';
import { analyzeJs, JS_ANALYZER_ID } from '../../shared/packs/js-analysis.ts';
import { buildPackGraph, staticVerdict, type StaticVerdict } from '../../shared/packs/pack-graph.ts';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const GOOD = 'var n=function(e){return String(e).toUpperCase()};export{n as shout};\n';
const BAD = 'var n=function(e){return import("node:fs")};export{n as shout};\n';

/** The verdict the compiler records after its own analysis of `source`. */
function verdictOf(source: string): StaticVerdict {
  const analysis = analyzeJs(source, { packName: 'p', publicSpecifiers: new Set(['p']), internalPaths: new Set(), displayName: 'lib (bundled)' });
  if (!analysis.ok) throw new Error(analysis.message);
  const verdict = staticVerdict(source, analysis.value, sha256);
  if (!verdict) throw new Error('no verdict');
  return verdict;
}

/** One pack with one npm entry whose compiler answers `source` with `analysis`. */
async function graphWith(source: string, analysis?: StaticVerdict) {
  const built = await buildPackGraph(
    { packName: 'p', packVersion: '1.0.0', internalPaths: [], files: [{ role: 'entry', specifier: 'p', entry: { name: '.', kind: 'js', npm: 'lib' } }] },
    {
      sha256,
      compileNpm: async () => ok({ source, compilerId: 'test-compiler', inputsDigest: 'a'.repeat(64), warnings: [], ...(analysis ? { analysis } : {}) }),
    },
  );
  if (!built.ok) throw new Error(built.message);
  return built.value;
}

describe("reusing the npm compiler's static verdict", () => {
  it('skips the parse when the verdict matches the bytes and the analyzer, with the same outcome as a parse', async () => {
    const verdict = verdictOf(GOOD);
    expect(verdict).toEqual({ analyzer: JS_ANALYZER_ID, sha256: sha256(new TextEncoder().encode(GOOD)), exportNames: ['shout'] });
    const reused = await graphWith(GOOD, verdict);
    const parsed = await graphWith(GOOD);
    expect(reused.analysis).toEqual({ parsed: 0, reused: 1 });
    expect(parsed.analysis).toEqual({ parsed: 1, reused: 0 });
    expect(reused.entries).toEqual(parsed.entries);
    expect([...reused.modules.values()]).toEqual([...parsed.modules.values()]);
  });

  it('parses again when one byte differs from what the verdict was made for', async () => {
    const changed = GOOD.replace('toUpperCase', 'toLowerCase');
    const graph = await graphWith(changed, verdictOf(GOOD));
    expect(graph.analysis).toEqual({ parsed: 1, reused: 0 });
    expect(graph.entries[0]).toMatchObject({ status: 'ready', exports: ['shout'] });
  });

  it('parses again under another analyzer id', async () => {
    const graph = await graphWith(GOOD, { ...verdictOf(GOOD), analyzer: 'js-analysis/0;acorn@8.19.0' });
    expect(graph.analysis).toEqual({ parsed: 1, reused: 0 });
  });

  it('a verdict carried over to a changed bundle does not let it pass: it is parsed and skipped', async () => {
    const graph = await graphWith(BAD, verdictOf(GOOD));
    expect(graph.analysis).toEqual({ parsed: 1, reused: 0 });
    expect(graph.entries[0]).toMatchObject({
      status: 'skipped',
      failure: { code: 'js-dynamic-import', message: 'p:1:26: import() is not allowed; use a static import of a file of this pack.' },
    });
  });

  it("judges require in a bundle it parses itself the compiler's way: a feature test is no skip", async () => {
    const umd = 'var kind = typeof require === "function" ? "cjs" : "esm";export{kind};\n';
    const graph = await graphWith(umd);
    expect(graph.analysis).toEqual({ parsed: 1, reused: 0 });
    expect(graph.entries[0]).toMatchObject({ status: 'ready', exports: ['kind'] });
  });

  it('is not made for a source whose analysis depended on the pack (it has imports)', () => {
    const source = 'import x from "p";\nexport const y = x;\n';
    const analysis = analyzeJs(source, { packName: 'p', publicSpecifiers: new Set(['p']), internalPaths: new Set(), displayName: 'x' });
    if (!analysis.ok) throw new Error(analysis.message);
    expect(staticVerdict(source, analysis.value, sha256)).toBeUndefined();
  });

  it('even a verdict forged for the exact bad bytes grants no import: the module gets an empty import map, which the loader enforces', async () => {
    // Forging needs write access to the compile cache, which already decides the probe; what
    // holds regardless is that a reused verdict always means "no imports".
    const forged: StaticVerdict = { analyzer: JS_ANALYZER_ID, sha256: sha256(new TextEncoder().encode(BAD)), exportNames: ['shout'] };
    const graph = await graphWith(BAD, forged);
    expect(graph.analysis).toEqual({ parsed: 0, reused: 1 });
    const module = [...graph.modules.values()][0];
    if (!module) throw new Error('no module');
    expect(module.imports).toEqual({});
    const loaderGraph = { entries: { p: module.moduleId }, modules: { [module.moduleId]: module } };
    expect(decideImport(loaderGraph, module.moduleId, 'node:fs')).toEqual({
      ok: false,
      code: 'import-denied',
      message: `Import "node:fs" from "p" was denied: a pack module may import only its own pack's files that it declares (pack p). Node builtins do not exist in the sandbox. This node's packages declaration is ["p"].`,
    });
  });
});
