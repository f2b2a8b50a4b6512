// Bench section `web-host`: what the HTTP face and the service add to a call, in the same run.
// First table: the HTTP face vs calling the dispatcher directly. Second table (issue 17): what a
// Code node run adds above its transport, beside a bare loopback round trip and the
// `@sebastianwessel/quickjs` anchor, back to back and after idle. The comment above each table in
// run() says what its rows are.

import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { loadQuickJs } from '@sebastianwessel/quickjs';
import { createAppServices } from '../../electron/services/app-services.ts';
import { fixtureDataDir } from '../../electron/testing/test-support.ts';
import { startWebHost } from '../../electron/server/web-host.ts';
import { webHostLibraryRows } from './web-host-libraries.ts';
import { fmtMs, measure, measureInterleaved, printRatio, printTable, type BenchSection, type Stats } from './harness.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
/** Untimed calls of each interleaved back-to-back row first (BENCH_WARMUP). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
/** Untimed anchor invocations first: the anchor is warmed as our rows are. */
const ANCHOR_WARMUP = 100;
/** Untimed wait before each sample of the "idle" rows. */
const IDLE_MS = 5;

/** A node:http server answering every request `{}` after reading its body: the transport alone. */
async function startBareServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** `top / (minuend − subtrahend)` of medians, printed with its goal. */
function printOverRatio(label: string, top: Stats, minuend: Stats, subtrahend: Stats, goal: string): void {
  const added = minuend.medianMs - subtrahend.medianMs;
  console.log(
    `ratio ${label}: ${(top.medianMs / added).toFixed(2)}× (${fmtMs(top.medianMs)} / (${fmtMs(minuend.medianMs)} − ${fmtMs(subtrahend.medianMs)}))  goal: ${goal}`,
  );
}

/** `(a − base) / (b − base)` of medians, printed with its goal. */
function printAddedRatio(label: string, a: Stats, b: Stats, base: Stats, goal: string): void {
  const ratio = (a.medianMs - base.medianMs) / (b.medianMs - base.medianMs);
  console.log(
    `ratio ${label}: ${ratio.toFixed(2)}× ((${fmtMs(a.medianMs)} − ${fmtMs(base.medianMs)}) / (${fmtMs(b.medianMs)} − ${fmtMs(base.medianMs)}))  goal: ${goal}`,
  );
}

export const webHostSection: BenchSection = {
  name: 'web-host',
  async run() {
    const data = await fixtureDataDir(path.join(REPO, 'fixtures/discovery/good/node_modules/@acme/geo'));
    const created = await createAppServices({ dataDir: data.path });
    if (!created.ok) throw new Error(created.message);
    const services = created.value;
    const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
    const bare = await startBareServer();
    try {
      const headers = { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' };
      const viaHttp = async (method: string, body: unknown) => {
        const res = await fetch(`${host.origin}/api/rpc/${method}`, { method: 'POST', headers, body: JSON.stringify(body) });
        const json = (await res.json()) as { ok: boolean; value?: { result?: { ok: boolean } } };
        if (!json.ok || json.value?.result?.ok === false) throw new Error(`${method} failed: ${JSON.stringify(json)}`);
      };
      const direct = async (method: string, body: unknown) => {
        const result = (await services.dispatcher.handle(method, body, { face: 'test' })) as { ok: boolean; value?: { result?: { ok: boolean } } };
        if (!result.ok || result.value?.result?.ok === false) throw new Error(`${method} failed: ${JSON.stringify(result)}`);
      };
      const loopback = async () => {
        const res = await fetch(bare.url, { method: 'POST', headers, body: '{}' });
        await res.json();
      };
      const wasmRun = { code: 'import { add } from "@acme/geo/simplify-wasm"; return await add(1, 2);', packages: [{ specifier: '@acme/geo/simplify-wasm' }] };
      const trivial = { code: 'return 1 + 1', packages: [] };
      // @acme/geo: two small JS modules (its entry and the internal util.js it imports), no WASM.
      const smallPack = {
        code: 'import { haversine } from "@acme/geo"; return haversine({ lat: 0, lon: 0 }, { lat: 1, lon: 1 });',
        packages: [{ specifier: '@acme/geo' }],
      };
      const moduleId = services.catalog.summaries().find((m) => m.specifier === '@acme/geo')!.moduleId!;
      const { runSandboxed } = await loadQuickJs(variant);
      const anchor = async () => {
        const out = (await runSandboxed(async ({ evalCode }) => evalCode('export default 1 + 1'))) as { ok: boolean };
        if (!out.ok) throw new Error(`anchor failed: ${JSON.stringify(out)}`);
      };

      // First table: the HTTP face vs calling the dispatcher directly — a small contract call
      // (settings.get), a catalog read (catalog.summaries), a module delivery, and a run importing
      // a WASM export (its cost is mostly the run's own).
      const rows = [
        await measure('settings.get direct', 300, () => direct('settings.get', {}), 20),
        await measure('settings.get over HTTP', 300, () => viaHttp('settings.get', {}), 20),
        await measure('catalog.summaries direct', 300, () => direct('catalog.summaries', {}), 20),
        await measure('catalog.summaries over HTTP', 300, () => viaHttp('catalog.summaries', {}), 20),
        await measure(
          'module delivery over HTTP',
          300,
          async () => {
            const res = await fetch(`${host.origin}/api/sandbox-modules/${moduleId}`, { headers });
            await res.arrayBuffer();
          },
          20,
        ),
        await measure('code.run direct, WASM export', 30, () => direct('code.run', wasmRun), 3),
        await measure('code.run over HTTP, WASM export', 30, () => viaHttp('code.run', wasmRun), 3),
      ];
      printTable('web host: HTTP face vs direct dispatcher', rows);
      const [sd, sh, cd, ch, , rd, rh] = rows;
      printRatio('settings.get HTTP/direct', sh!, sd!);
      printRatio('catalog.summaries HTTP/direct', ch!, cd!);
      printRatio('code.run (WASM export) HTTP/direct', rh!, rd!, '≈1× (transport negligible next to a run)');

      // Second table: what a Code node run adds above its transport. A bare loopback round trip
      // with the same client (fetch, keep-alive, POST with a JSON body) against a minimal
      // node:http server in this process answering `{}`, next to code.run over HTTP (trivial, and
      // importing one small JS pack), code.run straight through the dispatcher, and the anchor: one
      // `@sebastianwessel/quickjs` runSandboxed invocation (loaded as in kernel.ts). "Back to back"
      // rows start each sample the moment the last one ended; "after N ms idle" rows wait N ms
      // untimed first, time in which each sandbox worker prepares its next fresh sandbox. The idle
      // rows are compared with a loopback and an anchor that also wait first, since everything
      // costs more after a pause.
      // The rows compared by subtraction are measured interleaved (measureInterleaved), after
      // WARMUP untimed calls of each: see harness.ts for why.
      const backToBack = await measureInterleaved(
        [
          { label: 'bare loopback round trip (node:http answering {}), back to back', fn: loopback },
          { label: 'code.run over HTTP, trivial, back to back', fn: () => viaHttp('code.run', trivial) },
          { label: 'code.run over HTTP, one small JS pack, back to back', fn: () => viaHttp('code.run', smallPack) },
          { label: 'code.run direct (dispatcher), trivial, back to back', fn: () => direct('code.run', trivial) },
        ],
        { runs: RUNS, warmup: WARMUP },
      );
      const anchorT = await measure('anchor runSandboxed: trivial, back to back', RUNS, anchor, ANCHOR_WARMUP);
      // After a pause the first work runs slower (this machine wakes an idle core slowly: the bare
      // loopback costs ~1.5× after 5 ms idle), so the idle rows are compared with the anchor after
      // the same pause, measured with them (it costs only a few per cent more: its 5 ms dwarf the wake).
      const afterIdle = await measureInterleaved(
        [
          { label: `bare loopback round trip, ${IDLE_MS} ms idle first`, fn: loopback },
          { label: `code.run over HTTP, trivial, ${IDLE_MS} ms idle first`, fn: () => viaHttp('code.run', trivial) },
          { label: `code.run over HTTP, one small JS pack, ${IDLE_MS} ms idle first`, fn: () => viaHttp('code.run', smallPack) },
          { label: `anchor runSandboxed: trivial, ${IDLE_MS} ms idle first`, fn: anchor },
        ],
        { runs: RUNS, warmup: 20, idleMs: IDLE_MS },
      );
      const runRows = [...backToBack, anchorT, ...afterIdle];
      printTable(`code.run above its transport (${RUNS} runs each; small pack = @acme/geo, JS only)`, runRows);
      const [loop, httpT, httpS, directT] = backToBack as [Stats, Stats, Stats, Stats];
      const [loopIdle, httpTIdle, httpSIdle, anchorIdle] = afterIdle as [Stats, Stats, Stats, Stats];
      printOverRatio('anchor / (HTTP trivial − loopback), back to back', anchorT, httpT, loop, '≥ 10×');
      printAddedRatio('(HTTP small pack − loopback) / (HTTP trivial − loopback), back to back', httpS, httpT, loop, '≤ 1.5×');
      printOverRatio(`anchor / (HTTP trivial − loopback), all ${IDLE_MS} ms idle first`, anchorIdle, httpTIdle, loopIdle, '≥ 10×');
      printOverRatio(
        `anchor back to back / (HTTP trivial − loopback) ${IDLE_MS} ms idle first`,
        anchorT,
        httpTIdle,
        loopIdle,
        '(unlike conditions, shown for comparison)',
      );
      printAddedRatio(`(HTTP small pack − loopback) / (HTTP trivial − loopback), ${IDLE_MS} ms idle first`, httpSIdle, httpTIdle, loopIdle, '≤ 1.5×');
      printRatio('code.run HTTP/direct, trivial, back to back', httpT, directT);
    } finally {
      bare.server.close();
      await host.close();
      await services.dispose();
      await data.remove();
    }
    await webHostLibraryRows();
  },
};
