// Bench section `load` (issues 17, 30): fairness and resources under hostile load, with the web host
// in a process of its own (load-server.ts) and this process as its HTTP client (48 keep-alive
// sockets). 88 ordinary runs and 12 hostile ones are submitted at once, three rows of ordinary
// runs: the example workflow's shape (the geo pack's JS module and one awaited WASM export), the
// older pure-JS mix, and a fetch to a loopback server here (the bench-only grant). Every answer is
// checked against the same run made alone. Then the serving process's threads and RSS before and
// after the storms, and a trivial code.run after idle beside bare loopback and worker-echo floors.

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { responseSchemaOf } from '../../shared/contract/methods.ts';
import { fmtMs, measureInterleaved, printTable, type BenchSection, type Stats } from './harness.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVER = path.join(REPO, 'scripts', 'bench', 'load-server.ts');
const ORDINARY = 88;
const ROUNDS = 3;
const SOCKETS = 48;
const GOAL = { medianMs: 100, p95Ms: 500, threads: 8, rssMb: 150, backToBackMs: 0.3, afterIdleMs: 0.5 };
const IDLE_MS = 20;
const IDLE_RUNS = 200;
/** The one host the serving process lets runs fetch on loopback (load-server.ts passes it to the bench-only grant). */
export const LOAD_FETCH_HOST = '127.0.0.1';

/** The line load-server.ts prints once it listens. */
export const LoadServerLineSchema = z
  .object({ origin: z.url(), token: z.string().min(1), pid: z.number().int().positive(), bare: z.url(), dataDir: z.string().min(1) })
  .strict();
export type LoadServerLine = z.infer<typeof LoadServerLineSchema>;

interface RunBody {
  readonly code: string;
  readonly packages: { specifier: string }[];
  readonly inputs?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly fetchHosts?: string[];
}

interface Case {
  readonly body: RunBody;
  /** The value an ordinary run must return: the same run's answer made alone. */
  value?: unknown;
  readonly hostile?: string;
}

type RowKind = 'wasm' | 'js' | 'fetch';
const ROW_KINDS: readonly RowKind[] = ['wasm', 'js', 'fetch'];
/** BENCH_ROWS=wasm,js,fetch keeps only those rows (a quicker run while working on one path). */
const ROWS: readonly RowKind[] = process.env.BENCH_ROWS ? ROW_KINDS.filter((k) => process.env.BENCH_ROWS!.split(',').includes(k)) : ROW_KINDS;
const ROW_TITLES: Record<RowKind, string> = {
  wasm: 'JS module + one awaited WASM export (the example workflow; main row)',
  js: 'pure JS (the issue-17 mix: arithmetic, every 4th a JS pack import)',
  fetch: 'JS module + one fetch to a loopback server that answers at once (bench-only grant)',
};
const GEO = '@nodetool-ai/sandbox-geo';

function ordinary(kind: RowKind, i: number, fetchOrigin: string): Case {
  const inputs = { a: { lat: 0, lon: 0 }, b: { lat: (i % 60) - 30, lon: i } };
  if (kind === 'wasm') {
    return {
      body: {
        code: `import { haversine } from "${GEO}";\nimport { distanceMeters } from "${GEO}/simplify-wasm";\nconst meters = await distanceMeters(a.lat, a.lon, b.lat, b.lon);\nreturn [Math.round(meters), Math.round(haversine(a, b))];`,
        packages: [{ specifier: GEO }, { specifier: `${GEO}/simplify-wasm` }],
        inputs,
      },
    };
  }
  if (kind === 'fetch') {
    return {
      body: {
        code: `import { haversine } from "${GEO}";\nconst answer = await (await fetch(url)).json();\nreturn [answer.i, Math.round(haversine(a, b))];`,
        packages: [{ specifier: GEO }],
        inputs: { ...inputs, url: `${fetchOrigin}/i/${i}` },
        fetchHosts: [LOAD_FETCH_HOST],
      },
    };
  }
  if (i % 4 === 3) {
    return {
      body: {
        code: 'import { haversine } from "@acme/geo";\nreturn Math.round(haversine(a, b));',
        packages: [{ specifier: '@acme/geo' }],
        inputs: { a: { lat: 0, lon: 0 }, b: { lat: 0, lon: i } },
      },
    };
  }
  return { body: { code: 'return n * 2 + 1;', packages: [], inputs: { n: i } }, value: i * 2 + 1 };
}

/**
 * A hostile run. Those that never end on their own spin to a 2 s deadline; the others (memory,
 * stack, result size) keep the default one, so how they end does not depend on the CPU they get
 * on a loaded machine (at 2 s a bomb filling its heap in small steps timed out instead, seen here).
 */
const hostile = (kind: string, code: string, spins: boolean, packages: string[] = []): Case => ({
  hostile: kind,
  body: { code, packages: packages.map((specifier) => ({ specifier })), ...(spins ? { timeoutMs: 2000 } : {}) },
});
const HOSTILE_MIX: readonly Case[] = [
  ...Array.from({ length: 5 }, () => hostile('cpu loop', 'while (true) {}', true)),
  ...Array.from({ length: 2 }, () => hostile('memory bomb', 'const keep = [];\nwhile (true) keep.push(new Array(1 << 16).fill(keep.length));', false)),
  hostile('deep recursion', 'function down(n) { return down(n + 1) + 1; }\nreturn down(0);', false),
  hostile('wasm spin', 'import { spin } from "@bench/spin";\nreturn await spin();', true, ['@bench/spin']),
  hostile('wasm spin ×2', 'import { spin } from "@bench/spin";\nreturn await Promise.all([spin(), spin()]);', true, ['@bench/spin']),
  hostile('console flood', 'for (let i = 0; ; i++) console.log("line", i);', true),
  hostile('60 MB result', 'return "x".repeat(60 * 1024 * 1024);', false),
];

/** BENCH_HOSTILE=kind,kind… keeps only those hostile kinds (to see what each costs the ordinary runs). */
const HOSTILE: readonly Case[] = process.env.BENCH_HOSTILE
  ? HOSTILE_MIX.filter((h) => process.env.BENCH_HOSTILE!.split(',').includes(h.hostile!))
  : HOSTILE_MIX;

const CodeRunAnswer = responseSchemaOf('code.run');
type RunResult = z.infer<typeof CodeRunAnswer> extends infer R ? (R extends { ok: true; value: { result: infer X } } ? X : never) : never;

interface Answer {
  readonly ms: number;
  readonly result: RunResult;
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** One POST over `agent`, answered with its status and raw body. */
function post(agent: http.Agent, url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function runResultOf(text: string, status: number): RunResult {
  const parsed = CodeRunAnswer.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`code.run answered outside its contract (HTTP ${status}): ${parsed.error.message}`);
  if (!parsed.data.ok) throw new Error(`code.run failed: ${parsed.data.code}: ${parsed.data.message}`);
  return parsed.data.value.result;
}

interface Server {
  readonly line: LoadServerLine;
  stderr(): string;
  /** SIGINT, then SIGKILL if it has not exited in 10 s (then its data dir is removed here); says which. */
  stop(): Promise<'exited' | 'killed'>;
}

/** load-server.ts in its own process. */
/**
 * How the serving process runs. By default as the packaged app's backend does: load-server.ts
 * bundled with the backend (scripts/bundle-backend.mjs, its workers and assets staged beside it)
 * and started with plain node, no tsx. Under tsx (`BENCH_LOAD_DEV=1`, how `npm run web` runs in a
 * checkout) every worker also runs tsx's loader (its transform and source maps: ~200–300 ms more
 * per worker start, measured), which no user's app pays.
 */
const DEV_SERVER = process.env.BENCH_LOAD_DEV === '1';

/** The bundled backend with load-server.ts as one more entry, in a temp dir; returns the entry's path. */
async function bundleServer(out: string): Promise<string> {
  const args = [path.join(REPO, 'scripts', 'bundle-backend.mjs'), '--out', out, '--entry', `load-server=${SERVER}`];
  // The staged backend includes the UI; build it only when this checkout has none yet.
  if (existsSync(path.join(REPO, 'out', 'renderer', 'index.html'))) args.push('--no-ui-build');
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  child.stdout?.resume();
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`bundling the load server failed (${code}):\n${err}`);
  return path.join(out, 'load-server.mjs');
}

async function startServer(bundled: string | undefined): Promise<Server> {
  // BENCH_LOAD_PROF=DIR: the serving process writes a CPU profile of each of its threads there (node --cpu-prof).
  const prof = process.env.BENCH_LOAD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_LOAD_PROF}`] : [];
  const argv = [...prof, ...(bundled ? [bundled, LOAD_FETCH_HOST, REPO] : ['--import', 'tsx', SERVER, LOAD_FETCH_HOST, REPO])];
  const child: ChildProcess = spawn(process.execPath, argv, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  let killed = false;
  const stop = async (): Promise<'exited' | 'killed'> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
    return killed ? 'killed' : 'exited';
  };
  try {
    const deadline = Date.now() + 120_000;
    while (!out.includes('\n')) {
      if (child.exitCode !== null) throw new Error(`load-server exited (${child.exitCode}) before listening:\n${err}`);
      if (Date.now() > deadline) throw new Error(`load-server did not print its address within 120 s:\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const line = LoadServerLineSchema.parse(JSON.parse(out.slice(0, out.indexOf('\n'))));
    return {
      line,
      stderr: () => err,
      async stop() {
        const how = await stop();
        // A killed server could not remove its fixture data dir.
        if (how === 'killed') await rm(line.dataDir, { recursive: true, force: true });
        return how;
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Resources {
  readonly threads: number;
  readonly rssMb: number;
}

/** CPU time the process has used so far, user + system, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function resourcesOf(pid: number): Promise<Resources> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { threads: field('Threads'), rssMb: field('VmRSS') / 1024 };
}

/** The loopback server the `fetch` row's runs reach: answers `{"i":N}` for /i/N at once. */
async function startFetchTarget(): Promise<{ origin: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    const i = Number(/^\/i\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ i }));
  });
  await new Promise<void>((resolve) => server.listen(0, LOAD_FETCH_HOST, resolve));
  return {
    origin: `http://${LOAD_FETCH_HOST}:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const loadSection: BenchSection = {
  name: 'load',
  async run() {
    const started = performance.now();
    const target = await startFetchTarget();
    let server: Server | undefined;
    // Keep-alive sockets, fewer than the host's cap of 64 connections: requests past them wait in
    // the client, and that wait counts in their latency (they were submitted at the same moment).
    const agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS });
    const floorAgents = [0, 1, 2].map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    let sampler: NodeJS.Timeout | undefined;
    let bundleDir: string | undefined;
    try {
      bundleDir = DEV_SERVER ? undefined : await mkdtemp(path.join(os.tmpdir(), 'bench-load-backend-'));
      const bundled = bundleDir ? await bundleServer(bundleDir) : undefined;
      console.log(
        bundled
          ? 'serving process: the bundled backend (as the packaged app runs it), plain node'
          : 'serving process: load-server.ts under tsx (BENCH_LOAD_DEV=1)',
      );
      server = await startServer(bundled);
      const { origin, token, pid, bare } = server.line;
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const submit = async (body: RunBody): Promise<Answer> => {
        const start = performance.now();
        const { status, text } = await post(agent, `${origin}/api/rpc/code.run`, headers, JSON.stringify(body));
        const ms = performance.now() - start;
        return { ms, result: runResultOf(text, status) };
      };
      // Every round starts from the same connections, 48 fresh keep-alive sockets all open: a
      // hostile round lasts longer than the server keeps an idle socket (5 s), so the round after
      // one would otherwise time opening connections (~60 ms before its first run) or, when the
      // server closes a socket just as it is reused, fail with ECONNRESET (seen once; gone since
      // idle sockets are closed here). So 48 are opened anew with a trivial run each, untimed.
      const warm = () => {
        for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
        return Promise.all(
          Array.from({ length: SOCKETS }, async () => {
            if (!(await submit({ code: 'return 0;', packages: [] })).result.ok) throw new Error('a warm-up run failed');
          }),
        );
      };

      // Expected answers: each ordinary run made alone, one after another (this also warms the server up).
      await warm();
      const kinds = ROWS;
      const cases = new Map(kinds.map((kind) => [kind, Array.from({ length: ORDINARY }, (_, i) => ordinary(kind, i, target.origin))]));
      for (const list of cases.values()) {
        for (const c of list) {
          const alone = (await submit(c.body)).result;
          if (!alone.ok) throw new Error(`an ordinary run failed alone: ${alone.code}: ${alone.message}\n${c.body.code}`);
          c.value ??= alone.value;
          if (JSON.stringify(alone.value) !== JSON.stringify(c.value))
            throw new Error(`an ordinary run answered ${JSON.stringify(alone.value)}, not ${JSON.stringify(c.value)}`);
        }
      }
      const hostileCodes = new Map<string, string>();
      const hostileMs = new Map<string, number>();
      const bursts = new Map(
        kinds.map((kind) => [kind, { alone: [] as { cpuMs: number; wallMs: number }[], hostile: [] as { cpuMs: number; wallMs: number }[] }]),
      );
      const round = async (kind: RowKind, withHostile: boolean): Promise<number[]> => {
        await warm();
        const mix: Case[] = [...cases.get(kind)!];
        // Hostile runs spread through the burst (one every ~8 ordinary runs), as real traffic would have them.
        if (withHostile) HOSTILE.forEach((h, i) => mix.splice(i * Math.floor((ORDINARY + HOSTILE.length) / HOSTILE.length), 0, h));
        // The serving process's CPU from the burst's start to its last ordinary answer: how many of
        // the 2 cores the burst kept busy (near 2: CPU-bound; well under: runs wait on something else).
        const cpuStart = cpuMsOf(pid);
        const wallStart = performance.now();
        let left = ORDINARY;
        const answers = await Promise.all(
          mix.map((c) =>
            submit(c.body).then((a) => {
              if (!c.hostile && --left === 0)
                bursts.get(kind)![withHostile ? 'hostile' : 'alone'].push({ cpuMs: cpuMsOf(pid) - cpuStart, wallMs: performance.now() - wallStart });
              return { c, a };
            }),
          ),
        );
        const latencies: number[] = [];
        for (const { c, a } of answers) {
          if (c.hostile) {
            const code = a.result.ok ? 'ok' : a.result.code;
            if (code !== hostileCodes.get(c.hostile)) throw new Error(`${c.hostile} ended with ${code} under load, ${hostileCodes.get(c.hostile)} alone`);
            continue;
          }
          if (!a.result.ok || JSON.stringify(a.result.value) !== JSON.stringify(c.value)) {
            throw new Error(`an ordinary ${kind} run answered ${JSON.stringify(a.result)} instead of ${JSON.stringify(c.value)}`);
          }
          latencies.push(a.ms);
        }
        return latencies.sort((x, y) => x - y);
      };

      // The baseline: warmed up by the runs above, one at a time, before any burst.
      const baseline = await resourcesOf(pid);
      // After idle: a trivial run beside the bare floors of the serving process, interleaved; measured
      // here, in the quiet app before any burst (printed last).
      const trivial = JSON.stringify({ code: 'return 1;', packages: [] });
      const answered: { status: number; text: string }[] = [];
      const bareAnswers: { status: number; text: string }[] = [];
      const json = { 'Content-Type': 'application/json' };
      const floors = [
        { label: 'code.run `return 1;`', fn: async () => answered.push(await post(floorAgents[0]!, `${origin}/api/rpc/code.run`, headers, trivial)) },
        { label: 'bare loopback round trip', fn: async () => bareAnswers.push(await post(floorAgents[1]!, `${bare}/`, json, '{}')) },
        { label: 'bare worker echo round trip', fn: async () => bareAnswers.push(await post(floorAgents[2]!, `${bare}/echo`, json, '{}')) },
      ];
      const backToBack = await measureInterleaved(floors, { runs: IDLE_RUNS, warmup: 60 });
      const afterIdle = await measureInterleaved(floors, { runs: IDLE_RUNS, warmup: 20, idleMs: IDLE_MS });
      // Parsed and checked after the timing, so the floors and code.run pay the same client work inside it.
      for (const { status, text } of answered) {
        const result = runResultOf(text, status);
        if (!result.ok || result.value !== 1) throw new Error(`the trivial run answered ${JSON.stringify(result)}`);
      }
      for (const { status, text } of bareAnswers) {
        if (status !== 200 || !z.object({}).strict().safeParse(JSON.parse(text)).success) throw new Error(`the bare server answered ${status} ${text}`);
      }
      let peak = baseline;
      sampler = setInterval(() => {
        void resourcesOf(pid).then((now) => (peak = { threads: Math.max(peak.threads, now.threads), rssMb: Math.max(peak.rssMb, now.rssMb) }));
      }, 100);

      // Rounds of the three rows interleaved (noise hits them alike): all the rounds alone first,
      // then all with hostile runs (those leave extra workers behind, which retire when idle).
      // One untimed burst of each row first (answers checked): a burst of runs that cannot nest
      // starts the pool's extra workers, which the rounds after it find started.
      const rounds = new Map(kinds.map((kind) => [kind, { alone: [] as number[][], hostile: [] as number[][] }]));
      for (const kind of kinds) await round(kind, false);
      for (let r = 0; r < ROUNDS; r++) for (const kind of kinds) rounds.get(kind)!.alone.push(await round(kind, false));
      // Each hostile kind made alone, one after another: how it ends under load must be how it ends here.
      for (const h of HOSTILE.filter((h, i, all) => all.findIndex((o) => o.hostile === h.hostile) === i)) {
        const answer = await submit(h.body);
        hostileCodes.set(h.hostile!, answer.result.ok ? 'ok' : answer.result.code);
        hostileMs.set(h.hostile!, answer.ms);
      }
      for (let r = 0; r < ROUNDS; r++) for (const kind of kinds) rounds.get(kind)!.hostile.push(await round(kind, true));
      const stormEnded = performance.now();
      clearInterval(sampler);
      sampler = undefined;

      console.log(
        `\n## load: ${ORDINARY} ordinary + ${HOSTILE.length} hostile code.run calls submitted at once over HTTP from another process (${SOCKETS} keep-alive sockets), ${ROUNDS} rounds each`,
      );
      console.log(`hostile runs made alone end with: ${[...hostileCodes].map(([k, v]) => `${k} → ${v} (${fmtMs(hostileMs.get(k)!)})`).join(', ')}`);
      const flat = (lists: number[][]) => lists.flat().sort((x, y) => x - y);
      for (const kind of kinds) {
        const { alone, hostile: loaded } = rounds.get(kind)!;
        const rows: [string, number[]][] = [
          ...alone.map((l, r): [string, number[]] => [`alone, round ${r + 1}`, l]),
          ...loaded.map((l, r): [string, number[]] => [`with ${HOSTILE.length} hostile, round ${r + 1}`, l]),
          ['alone, all rounds', flat(alone)],
          [`with ${HOSTILE.length} hostile, all rounds`, flat(loaded)],
          [`with ${HOSTILE.length} hostile, rounds 2+ (warm)`, flat(loaded.slice(1))],
        ];
        console.log(`\n### ${ROW_TITLES[kind]}`);
        const width = Math.max(...rows.map(([label]) => label.length));
        console.log(`${'ordinary runs'.padEnd(width)}  ${'runs'.padStart(5)}  ${'median'.padStart(10)}  ${'p95'.padStart(10)}  ${'max'.padStart(10)}`);
        for (const [label, sorted] of rows) {
          console.log(
            `${label.padEnd(width)}  ${String(sorted.length).padStart(5)}  ${fmtMs(quantile(sorted, 0.5)).padStart(10)}  ${fmtMs(quantile(sorted, 0.95)).padStart(10)}  ${fmtMs(sorted.at(-1) ?? Number.NaN).padStart(10)}`,
          );
        }
        const all = flat(loaded);
        const burstLine = (list: readonly { cpuMs: number; wallMs: number }[]) =>
          list.map((b) => `${b.cpuMs.toFixed(0)} ms CPU in ${b.wallMs.toFixed(0)} ms (${(b.cpuMs / b.wallMs).toFixed(2)} cores)`).join(', ');
        const { alone: burstsAlone, hostile: burstsLoaded } = bursts.get(kind)!;
        // The untimed first burst of each row is the first entry of `alone`.
        console.log(`serving process, burst start to last ordinary answer: alone ${burstLine(burstsAlone.slice(1))}; with hostile ${burstLine(burstsLoaded)}`);
        const mark = (ok: boolean) => (ok ? 'met' : 'NOT met');
        console.log(
          `goal with hostile runs (all rounds): median < ${GOAL.medianMs} ms: ${fmtMs(quantile(all, 0.5))} (${mark(quantile(all, 0.5) < GOAL.medianMs)}); ` +
            `p95 < ${GOAL.p95Ms} ms: ${fmtMs(quantile(all, 0.95))} (${mark(quantile(all, 0.95) < GOAL.p95Ms)}); ` +
            `median with/without hostile ${(quantile(all, 0.5) / quantile(flat(alone), 0.5)).toFixed(2)}×`,
        );
      }
      console.log(`(fetch row: the loopback server answered ${target.hits()} requests)`);

      // Resources of the serving process after the last storm.
      const at = async (seconds: number) => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, stormEnded + seconds * 1000 - performance.now())));
        return resourcesOf(pid);
      };
      const after3 = await at(3);
      const after10 = await at(10);
      console.log(`\n### resources of the serving process (pid ${pid}: /proc/${pid}/status)`);
      console.log(`${'when'.padEnd(34)}  ${'threads'.padStart(8)}  ${'RSS'.padStart(9)}`);
      for (const [label, r] of [
        ['baseline (warmed up, before storms)', baseline],
        ['peak through the storms', peak],
        ['3 s after the last storm', after3],
        ['10 s after the last storm', after10],
      ] as const) {
        console.log(`${label.padEnd(34)}  ${String(r.threads).padStart(8)}  ${`${r.rssMb.toFixed(0)} MB`.padStart(9)}`);
      }
      console.log(
        `goal within 10 s: threads ≤ baseline + ${GOAL.threads} (${after10.threads} ≤ ${baseline.threads + GOAL.threads}: ${after10.threads <= baseline.threads + GOAL.threads ? 'met' : 'NOT met'}); ` +
          `RSS ≤ baseline + ${GOAL.rssMb} MB (${after10.rssMb.toFixed(0)} ≤ ${(baseline.rssMb + GOAL.rssMb).toFixed(0)} MB: ${after10.rssMb <= baseline.rssMb + GOAL.rssMb ? 'met' : 'NOT met'})`,
      );

      const label = (rows: Stats[], suffix: string) => rows.map((s) => ({ ...s, label: `${s.label}, ${suffix}` }));
      printTable(`load: after idle — a trivial run from this process vs. floors in the serving process (median of ${IDLE_RUNS})`, [
        ...label(backToBack, 'back to back'),
        ...label(afterIdle, `after ${IDLE_MS} ms idle`),
      ]);
      const [runB, loopB] = backToBack as [Stats, Stats, Stats];
      const [runI, loopI, echoI] = afterIdle as [Stats, Stats, Stats];
      const over = (a: Stats, b: Stats) => a.medianMs - b.medianMs;
      console.log(
        `code.run − loopback, back to back: ${fmtMs(over(runB, loopB))} (goal ≤ ${GOAL.backToBackMs} ms: ${over(runB, loopB) <= GOAL.backToBackMs ? 'met' : 'NOT met'})`,
      );
      console.log(
        `code.run − loopback, after ${IDLE_MS} ms idle: ${fmtMs(over(runI, loopI))} (goal ≤ ${GOAL.afterIdleMs} ms: ${over(runI, loopI) <= GOAL.afterIdleMs ? 'met' : 'NOT met'})`,
      );
      console.log(`worker echo − loopback, after ${IDLE_MS} ms idle (the wake-up floor): ${fmtMs(over(echoI, loopI))}`);
      const said = server.stderr().trim();
      if (said) console.log(`load-server said on stderr:\n${said.slice(-4000)}`);
      console.log(`(section took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
    } catch (error) {
      if (server) console.error(`load-server's stderr ends:\n${server.stderr().slice(-4000)}`);
      throw error;
    } finally {
      if (sampler) clearInterval(sampler);
      agent.destroy();
      for (const a of floorAgents) a.destroy();
      if ((await server?.stop()) === 'killed') console.log('load-server did not exit within 10 s of SIGINT and was killed');
      await target.close();
      if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
    }
  },
};
