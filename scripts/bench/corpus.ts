// Bench section `corpus` (opt-in: it needs the public npm registry): the compatibility corpus of
// issue 27. Every library of electron/testing/corpus/libraries.ts is wrapped as a config-only pack,
// packed with npm, and installed into one temp data directory by `packs.install <tgz>` over the web
// host of a `sandbox-packs serve` process (the library itself comes from the registry the app is
// set to: npm's). For each: the catalog's verdict, its smoke test through `code.run` over HTTP —
// the first run after the install, then warm runs interleaved with a trivial one — and the same
// smoke test in bare quickjs-ng (electron/testing/corpus/bare-quickjs.ts). Prints the table and,
// when the whole corpus ran, writes docs/compatibility.md (BENCH_CORPUS runs a subset: see run()).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS, corpusPackName, npmField, type CorpusLibrary } from '../../electron/testing/corpus/libraries.ts';
import { packCorpusPacks } from '../../electron/testing/corpus/corpus-pack.ts';
import { runBare } from '../../electron/testing/corpus/bare-quickjs.ts';
import { productCode, sameValue, shortJson } from '../../electron/testing/corpus/smoke.ts';
import { compatibilityMarkdown, reasonCell, worksThroughProduct, type BareSmoke, type CorpusRow, type ProductSmoke } from './corpus-report.ts';
import { statsOf, type BenchSection } from './harness.ts';
import { startServeProcess, type ServeProcess } from './serve-process.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = path.join(REPO, 'docs', 'compatibility.md');
/** BENCH_CORPUS_RUNS sets the warm runs per library (default 20). */
const WARM_RUNS = Number(process.env.BENCH_CORPUS_RUNS ?? 20);
const WARMUP = 5;
const TRIVIAL = { code: 'return 1 + 1', packages: [] };

/** One code.run over HTTP: its wall time and what it answered. */
async function timedRun(
  server: ServeProcess,
  request: { code: string; packages: { specifier: string }[] },
): Promise<{ ms: number; outcome: ProductSmoke; value?: unknown }> {
  const started = performance.now();
  const answer = await server.call('code.run', { ...request, timeoutMs: 10_000 });
  const ms = performance.now() - started;
  if (!answer.ok) return { ms, outcome: { ok: false, message: `${answer.code}: ${answer.message}` } };
  const result = answer.value.result;
  if (!result.ok) return { ms, outcome: { ok: false, message: `${result.code}: ${result.message}` } };
  return { ms, outcome: { ok: true }, value: result.value };
}

async function productSmoke(server: ServeProcess, lib: CorpusLibrary): Promise<Pick<CorpusRow, 'product' | 'firstRunMs' | 'warmMs' | 'trivialMs'>> {
  const specifier = corpusPackName(lib);
  const request = { code: productCode(lib.smoke, specifier), packages: [{ specifier }] };
  const first = await timedRun(server, request);
  let product: ProductSmoke = first.outcome;
  if (product.ok && !sameValue(first.value, lib.smoke.expect)) {
    product = { ok: false, message: `returned ${shortJson(first.value)}, expected ${shortJson(lib.smoke.expect)}` };
  }
  if (!product.ok) return { product, firstRunMs: first.ms };
  for (let i = 0; i < WARMUP; i++) {
    await timedRun(server, request);
    await timedRun(server, TRIVIAL);
  }
  const warm: number[] = [];
  const trivial: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const run = await timedRun(server, request);
    if (!run.outcome.ok) return { product: { ok: false, message: `warm run ${i + 1}: ${run.outcome.message}` }, firstRunMs: first.ms };
    warm.push(run.ms);
    trivial.push((await timedRun(server, TRIVIAL)).ms);
  }
  return { product, firstRunMs: first.ms, warmMs: statsOf('warm', warm).medianMs, trivialMs: statsOf('trivial', trivial).medianMs };
}

async function bareSmoke(lib: CorpusLibrary, resolveDir: string): Promise<BareSmoke> {
  const outcome = await runBare(lib.smoke, npmField(lib), resolveDir);
  if (!outcome.ok) return { ok: false, message: `${outcome.stage}: ${outcome.error.split('\n')[0] ?? ''}` };
  if (!sameValue(outcome.value, lib.smoke.expect))
    return { ok: false, message: `returned ${shortJson(outcome.value)}, expected ${shortJson(lib.smoke.expect)}` };
  return { ok: true, ms: outcome.evalMs };
}

async function corpusRow(server: ServeProcess, root: string, lib: CorpusLibrary, tarball: string): Promise<CorpusRow> {
  const name = corpusPackName(lib);
  const packDir = path.join(root, 'node_modules', ...name.split('/'));
  const started = performance.now();
  const installed = await server.call('packs.install', { spec: tarball });
  const installMs = performance.now() - started;
  if (!installed.ok) {
    return {
      lib,
      verdict: { status: 'install failed', code: installed.code, reason: installed.message },
      installMs,
      bare: { ok: false, message: 'not installed' },
    };
  }
  const diagnostics = await server.call('catalog.diagnostics', {});
  if (!diagnostics.ok) throw new Error(`catalog.diagnostics: ${diagnostics.code}: ${diagnostics.message}`);
  const pack = diagnostics.value.packs.find((p) => p.name === name);
  const module = pack?.modules.find((m) => m.specifier === name);
  const bare = await bareSmoke(lib, packDir);
  // The bare engine ran on this thread, synchronously, for up to seconds: let the event loop see
  // what the server did meanwhile (it closes idle keep-alive sockets after 5 s), or the next call
  // could be written to a socket that is already closed.
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (!module) {
    const code = pack?.code ?? 'unknown-specifier';
    const reason = pack?.reason ?? `discovery lists no module ${name}`;
    return { lib, verdict: { status: 'missing', code, reason }, installMs, bare };
  }
  if (module.status !== 'ready') {
    return { lib, verdict: { status: 'skipped', code: module.code ?? 'unknown', reason: module.reason ?? '' }, installMs, bare };
  }
  return { lib, verdict: { status: 'ready' }, installMs, ...(await productSmoke(server, lib)), bare };
}

function machine(): string {
  const cpus = os.cpus();
  return `${os.type()} ${os.arch()}, ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at start`;
}

function printRow(row: CorpusRow): void {
  const verdict = row.verdict.status === 'ready' ? 'ready' : `${row.verdict.status} ${row.verdict.code}`;
  const product = row.verdict.status !== 'ready' ? '' : row.product?.ok ? ' pass' : ` FAIL (${row.product?.message ?? '?'})`;
  const times =
    row.warmMs !== undefined
      ? ` first ${row.firstRunMs?.toFixed(0)} ms, warm ${row.warmMs.toFixed(1)} ms (${(row.warmMs / row.trivialMs!).toFixed(1)}× trivial)`
      : '';
  const bare = row.bare.ok ? `bare pass ${row.bare.ms.toFixed(1)} ms` : `bare fail (${row.bare.message.slice(0, 100)})`;
  console.log(`${row.lib.name}@${row.lib.version}: ${verdict}${product};${times}; ${bare}; install ${(row.installMs ?? 0).toFixed(0)} ms`);
}

export const corpusSection: BenchSection = {
  name: 'corpus',
  optIn: true,
  async run() {
    // BENCH_CORPUS=name,name runs only those libraries (its table goes to a temp file, not the doc).
    const only = process.env.BENCH_CORPUS?.split(',').filter(Boolean);
    const libs = only ? CORPUS.filter((lib) => only.includes(lib.name)) : CORPUS;
    const facts = { command: 'npm run bench -- corpus', date: new Date().toISOString().slice(0, 10), node: process.version, machine: machine() };
    const started = performance.now();
    console.log(`\n## corpus: ${libs.length} libraries, each a config-only pack installed over the web host of \`sandbox-packs serve\``);
    const work = await mkdtemp(path.join(os.tmpdir(), 'sp-corpus-'));
    let server: ServeProcess | undefined;
    try {
      const root = path.join(work, 'root');
      const tarballs = await packCorpusPacks(libs, work);
      server = await startServeProcess(root);
      // The server's first runs start its sandbox workers: not any library's first run.
      for (let i = 0; i < WARMUP; i++) await timedRun(server, TRIVIAL);
      const rows: CorpusRow[] = [];
      for (const lib of libs) {
        const tarball = tarballs.get(corpusPackName(lib));
        if (!tarball) throw new Error(`npm pack made no tarball for ${corpusPackName(lib)}`);
        const row = await corpusRow(server, root, lib, tarball);
        printRow(row);
        rows.push(row);
      }
      const totalSeconds = (performance.now() - started) / 1000;
      const works = rows.filter(worksThroughProduct).length;
      console.log(
        `corpus: ${works}/${rows.length} work through the product, ${rows.filter((r) => r.bare.ok).length} in bare quickjs-ng; ${totalSeconds.toFixed(0)} s`,
      );
      // The column the goal is about, said where the run is watched too, not only in the doc.
      const bareOnly = rows.filter((r) => r.bare.ok && !worksThroughProduct(r));
      console.log(`work in bare quickjs-ng but not through the product (${bareOnly.length})${bareOnly.length ? ':' : ': none'}`);
      for (const row of bareOnly) console.log(`  ${npmField(row.lib)}@${row.lib.version}: ${reasonCell(row)}`);
      const markdown = compatibilityMarkdown(rows, { ...facts, warmRuns: WARM_RUNS, warmup: WARMUP, totalSeconds });
      // A subset's table goes next to the temp files, never over the published one.
      const out = only ? path.join(os.tmpdir(), 'sp-corpus-subset.md') : DOC;
      await writeFile(out, markdown);
      console.log(`wrote ${only ? out : path.relative(process.cwd(), out)}${only ? ' (a subset ran: docs/compatibility.md left as it was)' : ''}`);
    } finally {
      try {
        await server?.stop();
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }
  },
};
