// Bench section `first-run`: what a first start costs. "Ours" is the first run (the shipped packs
// installed from their tarballs with the precompiled cache, the example workflow saved) plus the
// first discovery of the seeded root, each sample in a fresh Node process and a fresh data
// directory, timed inside the process (module loading excluded: that is the app starting, not the
// first run). The anchor is a bare `npm install --ignore-scripts --offline` of the same tarballs
// into an empty project, with the same npm run the same way (electron/install/npm-runner.ts): the
// least any install of them can cost. Goal: ours ≤ 1.5× the anchor. When a staged backend exists
// (dist/backend), its CLI's `first-run` and `discover` are also timed as whole processes.
// Then the cold compile of one bridge pack against its floor (coldCompile).

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE_DIR } from '../../electron/compiler/compile-cache.ts';
import { createNpmCompiler, type NpmCompileRequest } from '../../electron/compiler/npm-compiler.ts';
import { createProbe } from '../../electron/compiler/probe.ts';
import { shippedPrecompiled, shippedTarball } from '../../electron/first-run/shipped-tarballs.ts';
import { runNpm } from '../../electron/install/npm-runner.ts';
import { SHIPPED_PACKS } from '../../electron/platform/assets.ts';
import { measure, printRatio, printTable, type BenchSection, type Stats } from './harness.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNREACHABLE = 'http://127.0.0.1:9/';
const RUNS = 3;
const STAGED_CLI = path.join(repo, 'dist', 'backend', 'cli.mjs');

function stats(label: string, samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { label, runs: sorted.length, minMs: sorted[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}

async function bareNpm(tarballs: readonly string[], scratch: string): Promise<number> {
  const dir = await mkdtemp(path.join(scratch, 'bare-'));
  await writeFile(path.join(dir, 'package.json'), '{ "name": "bench-bare", "private": true }\n');
  const started = performance.now();
  const run = await runNpm(['install', '--ignore-scripts', '--offline', '--no-audit', '--no-fund', '--cache', path.join(dir, '.npm-cache'), ...tarballs], {
    cwd: dir,
  });
  const ms = performance.now() - started;
  if (run.code !== 0) throw new Error(`bare npm install failed: ${run.stderr}`);
  return ms;
}

/** First run + first discovery in a fresh process, timed inside it. */
function ours(scratch: string, index: number): { seed: number; discover: number } {
  const root = path.join(scratch, `ours-${index}`);
  const script = [
    `import { seedDataDir } from ${JSON.stringify(path.join(repo, 'electron/first-run/index.ts'))};`,
    `import { openCatalog } from ${JSON.stringify(path.join(repo, 'electron/catalog/catalog.ts'))};`,
    `import { createNpmCompiler } from ${JSON.stringify(path.join(repo, 'electron/compiler/npm-compiler.ts'))};`,
    `import { activePackNames } from ${JSON.stringify(path.join(repo, 'electron/install/active-packs.ts'))};`,
    `const root = ${JSON.stringify(root)};`,
    'const t0 = performance.now();',
    `const seeded = await seedDataDir(root, { registry: ${JSON.stringify(UNREACHABLE)} });`,
    'if (!seeded.ok || seeded.value.state !== "done") throw new Error(JSON.stringify(seeded));',
    'const t1 = performance.now();',
    'const compiler = createNpmCompiler({ root });',
    'const c = await openCatalog({ root, onlyPacks: () => activePackNames(root), compiler });',
    'if (!c.ok) throw new Error(c.message);',
    'const t2 = performance.now();',
    'const notReady = c.value.summaries().filter((s) => s.status !== "ready").map((s) => s.specifier);',
    'if (notReady.length) throw new Error(`not ready: ${notReady.join(", ")}`);',
    // Bundles parsed again by discovery vs. reused from the compiler's verdict (shared/packs/pack-graph.ts).
    'const analysis = c.value.snapshot().packs.reduce((sum, p) => ({ parsed: sum.parsed + (p.graph?.analysis.parsed ?? 0), reused: sum.reused + (p.graph?.analysis.reused ?? 0) }), { parsed: 0, reused: 0 });',
    'console.log(JSON.stringify({ seed: t1 - t0, discover: t2 - t1, stats: compiler.stats(), analysis, precompiled: seeded.value.precompiled }));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8' });
  const parsed = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
    seed: number;
    discover: number;
    stats: unknown;
    analysis: unknown;
    precompiled: unknown;
  };
  if (index === 0)
    console.log(
      `(first sample: compiler ${JSON.stringify(parsed.stats)}, JS analysis ${JSON.stringify(parsed.analysis)}, precompiled ${JSON.stringify(parsed.precompiled)})`,
    );
  return parsed;
}

/** The staged CLI as a user's first start would run it: two whole processes. */
function staged(scratch: string, index: number): number {
  const root = path.join(scratch, `staged-${index}`);
  const started = performance.now();
  execFileSync(process.execPath, [STAGED_CLI, 'first-run', '--root', root, '--registry', UNREACHABLE], { encoding: 'utf8' });
  execFileSync(process.execPath, [STAGED_CLI, 'discover', '--root', root], { encoding: 'utf8' });
  return performance.now() - started;
}

/**
 * The cold compile of one bridge pack (js-yaml) against its floor: the esbuild passes and checks
 * (with a probe that answers at once) plus the admission probe on a running worker.
 */
async function coldCompile(root: string): Promise<void> {
  const yaml = SHIPPED_PACKS.find((p) => p.dir === 'sandbox-yaml')!;
  const packDir = path.join(root, 'node_modules', ...yaml.name.split('/'));
  const req: NpmCompileRequest = { packDir, packName: yaml.name, packVersion: '1.0.0', npmName: 'js-yaml', specifier: yaml.name };
  const clear = () => rm(path.join(root, CACHE_DIR), { recursive: true, force: true });
  const running = createProbe();
  try {
    let bundle = '';
    const instant = async (source: string) => {
      bundle = source;
      return { ok: true as const, exports: [], outputBytes: 0, initMs: 0 };
    };
    await running('export const warm = 1;', 'warm.js');
    const reused = await measure('cold compile, probe worker running (2nd+ pack of a discovery)', 5, async () => {
      await clear();
      const r = await createNpmCompiler({ root, probe: running }).compile(req);
      if (!r.ok) throw new Error(r.message);
    });
    const booting = await measure(
      'cold compile, first of its process (boots the probe worker)',
      3,
      async () => {
        await clear();
        const own = createProbe();
        try {
          const r = await createNpmCompiler({ root, probe: own }).compile(req);
          if (!r.ok) throw new Error(r.message);
        } finally {
          await own.close();
        }
      },
      0,
    );
    // The same with the worker booted only when the probe asks (as before warm() existed): what overlapping boot with esbuild saves.
    const lateBoot = await measure(
      '  same, worker booted only when the probe runs',
      3,
      async () => {
        await clear();
        const own = createProbe();
        try {
          const r = await createNpmCompiler({ root, probe: (source, filename) => own(source, filename) }).compile(req);
          if (!r.ok) throw new Error(r.message);
        } finally {
          await own.close();
        }
      },
      0,
    );
    const esbuildFloor = await measure('floor: esbuild passes + checks (probe answers at once)', 5, async () => {
      await clear();
      const r = await createNpmCompiler({ root, probe: instant }).compile(req);
      if (!r.ok) throw new Error(r.message);
    });
    const probeFloor = await measure('floor: admission probe of the bundle on a running worker', 5, async () => {
      const r = await running(bundle, 'js-yaml.js');
      if (!r.ok) throw new Error(r.message);
    });
    const floor: Stats = {
      label: 'floor: esbuild + probe',
      runs: 5,
      minMs: esbuildFloor.minMs + probeFloor.minMs,
      medianMs: esbuildFloor.medianMs + probeFloor.medianMs,
      p95Ms: esbuildFloor.p95Ms + probeFloor.p95Ms,
    };
    printTable('first-run: cold compile of one bridge pack (js-yaml)', [reused, booting, lateBoot, esbuildFloor, probeFloor, floor]);
    printRatio('cold compile / floor', reused, floor, 'close to 1× (≈ 0.1 s)');
  } finally {
    await running.close();
  }
}

export const firstRunSection: BenchSection = {
  name: 'first-run',
  async run() {
    // What the staged app ships: the tarballs and the precompiled cache (built once per content).
    const tarballs = await Promise.all(SHIPPED_PACKS.map((pack) => shippedTarball(pack)));
    await shippedPrecompiled();
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-first-run-'));
    try {
      const bare: number[] = [];
      const seed: number[] = [];
      const discover: number[] = [];
      const total: number[] = [];
      const stagedTotal: number[] = [];
      const withStaged = existsSync(STAGED_CLI);
      // Interleaved, so a change in machine load hits both sides alike.
      for (let i = 0; i < RUNS; i++) {
        bare.push(await bareNpm(tarballs, scratch));
        const o = ours(scratch, i);
        seed.push(o.seed);
        discover.push(o.discover);
        total.push(o.seed + o.discover);
        if (withStaged) stagedTotal.push(staged(scratch, i));
      }
      const anchor = stats(`bare npm install --ignore-scripts --offline (${tarballs.length} tarballs)`, bare);
      const oursTotal = stats('first run + first discovery', total);
      const rows = [anchor, stats('  first run', seed), stats('  first discovery', discover), oursTotal];
      if (withStaged) rows.push(stats('staged CLI: first-run + discover (2 processes, wall)', stagedTotal));
      printTable(`first-run: first start with the ${SHIPPED_PACKS.length} shipped packs (fresh data directory per run)`, rows);
      printRatio('first run + first discovery / bare npm install', oursTotal, anchor, '≤ 1.5×');
      // With other work on the machine the medians swing by seconds; the fastest samples are the steadier pair.
      console.log(`ratio of the fastest samples: ${(oursTotal.minMs / anchor.minMs).toFixed(2)}×`);
      if (withStaged) printRatio('staged CLI (whole processes) / bare npm install', stats('staged', stagedTotal), anchor);
      else console.log(`(no staged backend at ${path.relative(repo, STAGED_CLI)}; scripts/bundle-backend.mjs makes one)`);
      await coldCompile(path.join(scratch, 'ours-0'));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
