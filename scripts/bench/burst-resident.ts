// What a burst leaves resident (issue 30): `sandbox-packs serve` in a child process on a fixture
// root, a storm of 100 code.run calls over HTTP (88 ordinary ones importing a JS module and
// awaiting a WASM export, 12 hostile), then the server's threads and resident memory from
// /proc/<pid>/status every 500 ms for 15 s. Run: `npx tsx scripts/bench/burst-resident.ts [storms]`.

import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureDataDir } from '../../electron/testing/test-support.ts';
import { writeSpinPack } from './spin-pack.ts';
import { startServeProcess } from './serve-process.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOCKETS = 48;

interface Body {
  code: string;
  packages: { specifier: string }[];
  inputs?: Record<string, unknown>;
  timeoutMs?: number;
}

const ORDINARY = (i: number): Body => ({
  code: 'import { haversine } from "@acme/geo";\nimport { add } from "@acme/geo/simplify-wasm";\nreturn (await add(n, 1)) + Math.round(haversine(a, b));',
  packages: [{ specifier: '@acme/geo' }, { specifier: '@acme/geo/simplify-wasm' }],
  inputs: { n: i, a: { lat: 0, lon: 0 }, b: { lat: 0, lon: 0 } },
});

const HOSTILE: Body[] = [
  ...Array.from({ length: 5 }, () => ({ code: 'while (true) {}', packages: [], timeoutMs: 2000 })),
  { code: 'const keep = [];\nwhile (true) keep.push(new Array(1 << 12).fill(keep.length));', packages: [], timeoutMs: 2000 },
  { code: 'const f = (n) => f(n + 1) + 1;\nreturn f(0);', packages: [], timeoutMs: 2000 },
  { code: 'import { spin } from "@bench/spin";\nreturn await spin();', packages: [{ specifier: '@bench/spin' }], timeoutMs: 2000 },
  { code: 'import { spin } from "@bench/spin";\nreturn await Promise.all([spin(), spin()]);', packages: [{ specifier: '@bench/spin' }], timeoutMs: 2000 },
  { code: 'for (let i = 0; ; i++) console.log("line", i);', packages: [], timeoutMs: 2000 },
  { code: 'return "x".repeat(60 * 1024 * 1024);', packages: [], timeoutMs: 10000 },
  { code: 'while (true) {}', packages: [], timeoutMs: 2000 },
];

async function status(pid: number): Promise<{ threads: number; rssMb: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const threads = Number(/Threads:\s+(\d+)/.exec(text)![1]);
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(text)![1]) / 1024;
  return { threads, rssMb };
}

async function threadNames(pid: number): Promise<string> {
  const names = new Map<string, number>();
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const name = (await readFile(`/proc/${pid}/task/${task}/comm`, 'utf8').catch(() => '?')).trim();
    names.set(name, (names.get(name) ?? 0) + 1);
  }
  return [...names].map(([n, c]) => `${n}×${c}`).join(', ');
}

/** Resident MB by kind of mapping: WASM memories (reservations of GBs), other anonymous, files. */
async function mappings(pid: number): Promise<string> {
  const text = await readFile(`/proc/${pid}/smaps`, 'utf8');
  const sums = new Map<string, { rss: number; count: number }>();
  let kind = '';
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = Number(BigInt(`0x${head[2]}`) - BigInt(`0x${head[1]}`));
      const name = head[3]!;
      kind = name
        ? name.startsWith('/')
          ? 'file'
          : name
        : size >= 4 * 2 ** 30
          ? 'anon ≥4GB'
          : size >= 64 * 2 ** 20
            ? 'anon ≥64MB'
            : size >= 8 * 2 ** 20
              ? 'anon 8-64MB'
              : size >= 1 * 2 ** 20
                ? 'anon 1-8MB'
                : size > 256 * 1024
                  ? 'anon 256k-1MB'
                  : size === 256 * 1024
                    ? 'anon 256k'
                    : 'anon <256k';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const sum = sums.get(kind) ?? { rss: 0, count: 0 };
      sum.rss += Number(rss[1]) / 1024;
      sum.count++;
      sums.set(kind, sum);
    }
  }
  return [...sums]
    .filter(([, v]) => v.rss >= 1)
    .map(([k, v]) => `${k}: ${v.rss.toFixed(0)} MB in ${v.count}`)
    .join('; ');
}

const data = await fixtureDataDir(path.join(REPO, 'fixtures/discovery/good/node_modules/@acme/geo'));
await writeSpinPack(data.path);
const server = await startServeProcess(data.path);
const { origin } = server;
const agent = new http.Agent({ keepAlive: true, maxSockets: SOCKETS });
const headers = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' };
type Answer = { ok: boolean; value?: { result: { ok: boolean; code?: string } }; message?: string };
const submit = (body: Body): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = http.request(`${origin}/api/rpc/code.run`, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
const storms = Number(process.argv[2] ?? 1);
try {
  for (let i = 0; i < 6; i++) {
    const r = await submit(ORDINARY(i));
    if (!r.ok || !r.value?.result.ok) throw new Error(`warm-up failed: ${JSON.stringify(r).slice(0, 400)}`);
  }
  await new Promise((r) => setTimeout(r, 3000));
  const baseline = await status(server.pid);
  console.log(`baseline: threads ${baseline.threads}, rss ${baseline.rssMb.toFixed(0)} MB (${origin})`);
  console.log(`threads by name: ${await threadNames(server.pid)}`);
  console.log(`rss by mapping: ${await mappings(server.pid)}`);
  for (let s = 0; s < storms; s++) {
    const mix: Body[] = Array.from({ length: 88 }, (_, i) => ORDINARY(i));
    HOSTILE.forEach((h, i) => mix.splice(i * 8, 0, h));
    let peak = { threads: 0, rssMb: 0 };
    const sampler = setInterval(() => {
      void status(server.pid).then((now) => (peak = { threads: Math.max(peak.threads, now.threads), rssMb: Math.max(peak.rssMb, now.rssMb) }));
    }, 200);
    const started = performance.now();
    const answers = await Promise.all(mix.map((b) => submit(b)));
    clearInterval(sampler);
    const failed = answers.filter((a, i) => !a.ok || (i % 8 !== 0 && !a.value?.result.ok)).length;
    console.log(
      `hostile: ${HOSTILE.map((_, i) => {
        const a = answers[i * 8]!;
        return a.ok ? (a.value!.result.ok ? 'ok' : a.value!.result.code) : a.message;
      }).join(', ')}`,
    );
    console.log(
      `storm ${s + 1}: ${((performance.now() - started) / 1000).toFixed(1)} s, ${failed} unexpected failures; peak threads ${peak.threads}, rss ${peak.rssMb.toFixed(0)} MB`,
    );
    const line: string[] = [];
    for (let t = 500; t <= 15_000; t += 500) {
      await new Promise((r) => setTimeout(r, 500));
      const now = await status(server.pid);
      line.push(`${(t / 1000).toFixed(1)}s:${now.threads}/${now.rssMb.toFixed(0)}`);
    }
    console.log(`after (threads/rss MB): ${line.join(' ')}`);
    console.log(`threads by name: ${await threadNames(server.pid)}`);
    console.log(`rss by mapping: ${await mappings(server.pid)}`);
  }
} finally {
  agent.destroy();
  await server.stop();
  await data.remove();
}
