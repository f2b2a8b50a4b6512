// Bench section `load`: fairness under hostile load (issue 17). Ordinary Code-node runs are
// submitted over HTTP to the web host (the app's services on a fixture data dir, keep-alive
// fetch), ~90 at the same moment, first alone and then with a dozen hostile runs among them: CPU
// loops spinning to their 2 s deadline, a memory bomb, a WASM export that never returns (a pack
// generated here) and a console flood. Each ordinary run's latency is counted from its submission
// to its answer; every answer is checked (ordinary values exactly, hostile ones by code against
// the same run made alone), so a figure never comes from runs that went wrong.

import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAppServices } from '../../electron/services/app-services.ts';
import { fixtureDataDir } from '../../electron/testing/test-support.ts';
import { startWebHost } from '../../electron/server/web-host.ts';
import { buildWasm, op } from '../../shared/testing/wasm-builder.ts';
import { fmtMs, type BenchSection } from './harness.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ORDINARY = 90;
const ROUNDS = 3;
const SOCKETS = 48;
const GOAL = { medianMs: 100, p95Ms: 500 };

interface RunBody {
  readonly code: string;
  readonly packages: { specifier: string }[];
  readonly inputs?: Record<string, unknown>;
  readonly timeoutMs?: number;
}

interface Case {
  readonly body: RunBody;
  /** The value an ordinary run must return. */
  readonly value?: unknown;
  readonly hostile?: string;
}

/** spin(): a loop that never ends, so the call never returns (the run's deadline ends it). */
const SPIN = buildWasm({
  funcs: [{ type: { params: [], results: ['i32'] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end, op.i32_const, 0] }],
  exports: [{ name: 'spin', kind: 'func', index: 0 }],
});

async function writeSpinPack(dataDir: string): Promise<void> {
  const dir = path.join(dataDir, 'node_modules', '@bench', 'spin');
  await mkdir(dir, { recursive: true });
  const manifest = {
    name: '@bench/spin',
    version: '1.0.0',
    description: 'A WASM export that never returns (bench load).',
    nodetool: {
      apiVersion: 1,
      sandboxModules: [{ name: '.', kind: 'wasm', file: 'spin.wasm', memoryPagesMax: 1, exports: ['spin'], description: 'Never returns.' }],
    },
  };
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  await writeFile(path.join(dir, 'SKILL.md'), '# @bench/spin\n\n`spin()` never returns.\n');
  await writeFile(path.join(dir, 'spin.wasm'), SPIN);
}

function ordinary(i: number): Case {
  if (i % 4 === 3) {
    return {
      body: {
        code: 'import { haversine } from "@acme/geo";\nreturn Math.round(haversine(a, b));',
        packages: [{ specifier: '@acme/geo' }],
        inputs: { a: { lat: 0, lon: 0 }, b: { lat: 0, lon: i } },
      },
      value: undefined,
    };
  }
  return { body: { code: 'return n * 2 + 1;', packages: [], inputs: { n: i } }, value: i * 2 + 1 };
}

const HOSTILE_MIX: readonly Case[] = [
  ...Array.from({ length: 9 }, (): Case => ({ hostile: 'cpu loop', body: { code: 'while (true) {}', packages: [], timeoutMs: 2000 } })),
  { hostile: 'memory bomb', body: { code: 'const keep = [];\nwhile (true) keep.push(new Array(1 << 12).fill(keep.length));', packages: [], timeoutMs: 2000 } },
  {
    hostile: 'wasm spin',
    body: { code: 'import { spin } from "@bench/spin";\nreturn await spin();', packages: [{ specifier: '@bench/spin' }], timeoutMs: 2000 },
  },
  { hostile: 'console flood', body: { code: 'for (let i = 0; ; i++) console.log("line", i);', packages: [], timeoutMs: 2000 } },
];

/** BENCH_HOSTILE=kind,kind… keeps only those hostile kinds (to see what each costs the ordinary runs). */
const HOSTILE: readonly Case[] = process.env.BENCH_HOSTILE
  ? HOSTILE_MIX.filter((h) => process.env.BENCH_HOSTILE!.split(',').includes(h.hostile!))
  : HOSTILE_MIX;

interface Answer {
  readonly ms: number;
  readonly result: { ok: boolean; value?: unknown; code?: string; message?: string };
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

export const loadSection: BenchSection = {
  name: 'load',
  async run() {
    const data = await fixtureDataDir(path.join(REPO, 'fixtures/discovery/good/node_modules/@acme/geo'));
    await writeSpinPack(data.path);
    const created = await createAppServices({ dataDir: data.path });
    if (!created.ok) throw new Error(created.message);
    const services = created.value;
    const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
    // Keep-alive sockets, fewer than the host's cap of 64 connections: requests past them wait in
    // the client, and that wait counts in their latency (they were submitted at the same moment).
    const agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS });
    const headers = { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' };
    const submit = (body: RunBody): Promise<Answer> => {
      const start = performance.now();
      return new Promise<Answer>((resolve, reject) => {
        const req = http.request(`${host.origin}/api/rpc/code.run`, { method: 'POST', headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ok: boolean; value?: { result: Answer['result'] }; message?: string };
            if (!json.ok || !json.value) reject(new Error(`code.run failed: ${json.message ?? res.statusCode}`));
            else resolve({ ms: performance.now() - start, result: json.value.result });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    };
    try {
      // Expected answers: ordinary values from one run each made alone; hostile codes likewise.
      const cases = Array.from({ length: ORDINARY }, (_, i) => ordinary(i));
      for (const c of cases) (c as { value: unknown }).value ??= (await submit(c.body)).result.value;
      const hostileCodes = new Map<string, string | undefined>();
      for (const answer of await Promise.all(
        HOSTILE.filter((h, i, all) => all.findIndex((o) => o.hostile === h.hostile) === i).map(async (h) => [h.hostile!, await submit(h.body)] as const),
      )) {
        hostileCodes.set(answer[0], answer[1].result.ok ? 'ok' : answer[1].result.code);
      }
      console.log(`\n## load: ${ORDINARY} ordinary code.run calls over HTTP submitted at once, ${ROUNDS} rounds each`);
      console.log(`hostile runs made alone end with: ${[...hostileCodes].map(([k, v]) => `${k} → ${v}`).join(', ')}`);

      // Every round starts from the same connections, the client's keep-alive sockets all open: a
      // hostile round lasts longer than the server keeps an idle socket, so the round after one
      // would otherwise also time opening 48 connections (measured: ~60 ms before its first run).
      const warm = () =>
        Promise.all(
          Array.from({ length: SOCKETS }, async () => {
            const answer = await submit({ code: 'return 0;', packages: [] });
            if (!answer.result.ok) throw new Error('a warm-up run failed');
          }),
        );
      const round = async (withHostile: boolean): Promise<number[]> => {
        await warm();
        const mix: Case[] = [...cases];
        // Hostile runs spread through the burst (one every ~8 ordinary runs), as real traffic would have them.
        if (withHostile) HOSTILE.forEach((h, i) => mix.splice(i * Math.floor((ORDINARY + HOSTILE.length) / HOSTILE.length), 0, h));
        const answers = await Promise.all(mix.map((c) => submit(c.body).then((a) => ({ c, a }))));
        const latencies: number[] = [];
        for (const { c, a } of answers) {
          if (c.hostile) {
            const code = a.result.ok ? 'ok' : a.result.code;
            if (code !== hostileCodes.get(c.hostile)) throw new Error(`${c.hostile} ended with ${code} under load, ${hostileCodes.get(c.hostile)} alone`);
            continue;
          }
          if (!a.result.ok || JSON.stringify(a.result.value) !== JSON.stringify(c.value)) {
            throw new Error(`an ordinary run answered ${JSON.stringify(a.result)} instead of ${JSON.stringify(c.value)}`);
          }
          latencies.push(a.ms);
        }
        return latencies;
      };

      const rows: [string, number[]][] = [];
      // The process's resident memory (sandbox workers are threads of it), sampled through the rounds.
      let peakRss = process.memoryUsage().rss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
      const pooled: Record<'alone' | 'hostile' | 'hostileWarm', number[]> = { alone: [], hostile: [], hostileWarm: [] };
      for (const withHostile of [false, true]) {
        for (let r = 0; r < ROUNDS; r++) {
          const latencies = (await round(withHostile)).sort((a, b) => a - b);
          (withHostile ? pooled.hostile : pooled.alone).push(...latencies);
          // After the first hostile round the extra workers it started are still there (they retire after 5 s idle, and the next round starts sooner).
          if (withHostile && r > 0) pooled.hostileWarm.push(...latencies);
          rows.push([`${withHostile ? `with ${HOSTILE.length} hostile` : 'alone'}, round ${r + 1}`, latencies]);
        }
      }
      for (const list of Object.values(pooled)) list.sort((a, b) => a - b);
      rows.push(
        ['alone, all rounds', pooled.alone],
        [`with ${HOSTILE.length} hostile, all rounds`, pooled.hostile],
        [`with ${HOSTILE.length} hostile, rounds 2+ (warm)`, pooled.hostileWarm],
      );
      const width = Math.max(...rows.map(([label]) => label.length));
      console.log(`${'ordinary runs'.padEnd(width)}  ${'runs'.padStart(5)}  ${'median'.padStart(10)}  ${'p95'.padStart(10)}  ${'max'.padStart(10)}`);
      for (const [label, sorted] of rows) {
        console.log(
          `${label.padEnd(width)}  ${String(sorted.length).padStart(5)}  ${fmtMs(quantile(sorted, 0.5)).padStart(10)}  ${fmtMs(quantile(sorted, 0.95)).padStart(10)}  ${fmtMs(sorted.at(-1) ?? Number.NaN).padStart(10)}`,
        );
      }
      clearInterval(sampler);
      console.log(`peak resident memory of the process through the rounds: ${(peakRss / 2 ** 20).toFixed(0)} MB`);
      for (const [label, list] of [
        ['all rounds', pooled.hostile],
        ['warm rounds', pooled.hostileWarm],
      ] as const) {
        console.log(
          `ratio ordinary median with/without hostile, ${label}: ${(quantile(list, 0.5) / quantile(pooled.alone, 0.5)).toFixed(2)}× (goal ≈1×); ` +
            `goal under hostile load: median < ${GOAL.medianMs} ms (${fmtMs(quantile(list, 0.5))}), p95 < ${GOAL.p95Ms} ms (${fmtMs(quantile(list, 0.95))})`,
        );
      }
    } finally {
      agent.destroy();
      await host.close();
      await services.dispose();
      await data.remove();
    }
  },
};
