// Bench section `wasm`: what a scalar WASM call costs at each layer, measured in one run so the
// ratios mean something. Floor: a direct in-process call of the same export; then a fresh
// instance per call in-process; then a call through a main-thread WASM pool (postMessage round
// trip; its workers keep a spare instance ready, see wasm-worker.mjs); then through the per-run
// dispatcher; then the guest-visible call (guestVisible says how it is timed). Last, pool
// throughput with 1, 2 and 4 workers for a trivial export and for one doing ~0.5 ms of work. The
// geo module has no linear memory (its math is table-free); a module with one page is measured
// alongside, because mapping a fresh linear memory per call dominates instantiate-per-call.

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import type { KernelRunRequest } from '../../shared/protocol/run.ts';
import { openCatalog } from '../../electron/catalog/catalog.ts';
import type { ExecutableModule } from '../../shared/protocol/index.ts';
import { buildWasm, op } from '../../shared/testing/wasm-builder.ts';
import { validateWasmBinary } from '../../shared/packs/wasm-binary.ts';
import { hostMemoryForm } from '../../shared/packs/wasm-memory-import.ts';
import { InstanceSupply } from '../../shared/sandbox/wasm/instance-supply.mjs';
import { createWasmDispatcher, type WasmDispatcher } from '../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { WasmPool } from '../../electron/testing/wasm-pool.ts';
import { portedSandboxPool, withWasmPort } from '../../electron/testing/wasm-port.ts';
import { WasmModuleCache } from '../../electron/runtime/wasm/module-cache.ts';
import { buildWasmPlan } from '../../electron/runtime/wasm/wasm-plan.ts';
import { fmtMs, measure, printRatio, printTable, type BenchSection, type Stats } from './harness.ts';
import { wasmBytesRows } from './wasm-bytes.ts';

const GEO = new Uint8Array(readFileSync(new URL('../../packs/geo/wasm/geo.wasm', import.meta.url)));
const ARGS = [52.52, 13.405, 48.8566, 2.3522];

/** burn(n): a counting loop; BURN_N iterations take roughly half a millisecond. */
const BURN = buildWasm({
  funcs: [
    {
      type: { params: ['i32'], results: ['i32'] },
      body: [op.loop, op.blocktype_empty, op.local_get, 0, op.i32_const, 1, op.i32_sub, op.local_tee, 0, op.br_if, 0, op.end, op.local_get, 0],
    },
  ],
  exports: [{ name: 'burn', kind: 'func', index: 0 }],
});
const BURN_N = 500_000;
/** Runs of 250 guest calls a fresh sandbox worker makes before the steady-state samples. */
const WARMUP_RUNS = 40;

/** The bytes reference module: one page of linear memory, so a fresh instance maps a memory. */
const WITH_MEMORY = new Uint8Array(readFileSync(new URL('../../wasm-src/bin/bytes.wasm', import.meta.url)));

/** Time `batch` calls per sample and report per-call figures. */
async function perCall(label: string, runs: number, batch: number, fn: () => unknown | Promise<unknown>): Promise<Stats> {
  const s = await measure(label, runs, async () => {
    for (let i = 0; i < batch; i++) await fn();
  });
  return { label, runs: s.runs, minMs: s.minMs / batch, medianMs: s.medianMs / batch, p95Ms: s.p95Ms / batch };
}

/** Same for synchronous calls, without an await per call (which would dominate a 2 ns call). */
async function perCallSync(label: string, runs: number, batch: number, fn: () => unknown): Promise<Stats> {
  let sink = 0;
  const s = await measure(label, runs, () => {
    for (let i = 0; i < batch; i++) sink += fn() as number;
  });
  if (sink === 42) console.log('');
  return { label, runs: s.runs, minMs: s.minMs / batch, medianMs: s.medianMs / batch, p95Ms: s.p95Ms / batch };
}

function geoDispatcher(pool: WasmPool): WasmDispatcher {
  const validated = validateWasmBinary(GEO, { memoryPagesMax: 1, exports: ['distanceMeters'] });
  if (!validated.ok) throw new Error(validated.message);
  const mod: ExecutableModule = {
    moduleId: 'geo',
    kind: 'wasm',
    packName: '@nodetool-ai/sandbox-geo',
    packVersion: '0.1.0',
    specifier: '@nodetool-ai/sandbox-geo/simplify-wasm',
    displayName: '@nodetool-ai/sandbox-geo/simplify-wasm',
    source: '',
    imports: {},
    digest: '0'.repeat(64),
    wasm: { bytes: GEO, exports: validated.value.exports, memoryPagesMax: 1, budgets: {} },
  };
  return createWasmDispatcher({ modules: { geo: mod } }, pool);
}

async function throughput(size: number, bytes: Uint8Array, exportName: string, args: number[], calls: number): Promise<number> {
  const pool = new WasmPool({ size });
  try {
    // Warm every worker (start-up and first module transfer are not what this measures).
    await Promise.all(Array.from({ length: size * 2 }, () => pool.call({ bytes, exportName, args, timeoutMs: 5000 })));
    const start = performance.now();
    const replies = await Promise.all(Array.from({ length: calls }, () => pool.call({ bytes, exportName, args, timeoutMs: 5000 })));
    const elapsed = performance.now() - start;
    if (replies.some((r) => !r.ok)) throw new Error(`throughput run failed: ${JSON.stringify(replies.find((r) => !r.ok))}`);
    return (calls / elapsed) * 1000;
  } finally {
    await pool.dispose();
  }
}

/**
 * Per-call cost of `await tileX(...)` in guest code: (run with N calls − run with 0) / N. The
 * production route answers in the sandbox worker (its dispatcher and WASM lanes, from a plan);
 * `viaMain` measures the route through a main-thread port and pool, for comparison.
 *
 * The guest-visible call is an `await` of a facade export in QuickJS, measured as the difference
 * between a run making 250 calls and the same run making none, over 250, timed by the kernel's
 * receipt. Its row is the app's route — kernel, dispatcher and WASM lanes all in the sandbox
 * worker — on a warmed-up worker, with its first run reported apart; the route through a
 * main-thread port is measured alongside for comparison.
 */
async function guestVisible(pool: WasmPool, runs: number, calls: number, viaMain: boolean): Promise<{ cold: Stats; warm: Stats }> {
  const root = mkdtempSync(join(tmpdir(), 'bench-wasm-'));
  const sandbox = portedSandboxPool({ size: 1 });
  const cache = new WasmModuleCache();
  try {
    cpSync(new URL('../../packs/geo', import.meta.url), join(root, 'node_modules', '@nodetool-ai', 'sandbox-geo'), { recursive: true });
    const catalog = await openCatalog({ root });
    if (!catalog.ok) throw new Error(catalog.message);
    const resolution = catalog.value.resolveForExecution([{ specifier: '@nodetool-ai/sandbox-geo/simplify-wasm' }]);
    if (!resolution.ok) throw new Error(resolution.message);
    const request = (n: number): KernelRunRequest =>
      toKernelRequest({
        code: `import { tileX } from "@nodetool-ai/sandbox-geo/simplify-wasm";\nlet s = 0;\nfor (let i = 0; i < ${n}; i++) s += await tileX(13.4, 10);\nreturn s;`,
        resolution,
        timeoutMs: 30_000,
      });
    // Timed where the guest lives: the run's wall time as the kernel reports it in its receipt
    // (the main thread's own noise — scheduling the run, parsing its result — is not the guest's).
    const once = async (n: number) => {
      const dispatcher = viaMain ? createWasmDispatcher(resolution, pool) : undefined;
      const ports = dispatcher
        ? withWasmPort({ call: (id, name, args) => dispatcher.bridge(id, name, args) })
        : { wasm: { plan: await buildWasmPlan(resolution, cache) } };
      const result = await sandbox.run(request(n), ports);
      dispatcher?.close();
      if (!result.ok || result.value !== 550 * n) throw new Error(`guest bench run failed: ${JSON.stringify(result)}`);
      return result.receipt.wallMs;
    };
    // A fresh sandbox worker runs its engine (quickjs-ng, itself WASM) and our glue on V8's
    // baseline tiers for its first few thousand calls; an app's workers are long-lived. The first
    // run is reported as it is, then the worker warms up before the steady-state samples.
    await once(0); // the worker is up and its engine compiled
    const coldEmpty = await once(0);
    const cold = ((await once(calls)) - coldEmpty) / calls;
    for (let i = 0; i < WARMUP_RUNS; i++) await once(calls);
    const diffs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const empty = await once(0);
      const full = await once(calls);
      diffs.push((full - empty) / calls);
    }
    diffs.sort((x, y) => x - y);
    const at = (q: number) => diffs[Math.min(diffs.length - 1, Math.floor(q * diffs.length))] ?? Number.NaN;
    const label = viaMain ? 'guest-visible call, via a main-thread port' : 'guest-visible call (facade+kernel+dispatcher+lane)';
    return {
      cold: { label: `${label}: first run of a fresh worker`, runs: 1, minMs: cold, medianMs: cold, p95Ms: cold },
      warm: { label, runs, minMs: diffs[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) },
    };
  } finally {
    await sandbox.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export const wasmSection: BenchSection = {
  name: 'wasm',
  async run() {
    const module = new WebAssembly.Module(GEO);
    const instance = new WebAssembly.Instance(module, {});
    const direct = instance.exports.distanceMeters as (...a: number[]) => number;
    const [a, b, c, d] = ARGS as [number, number, number, number];

    const rows: Stats[] = [];
    const floor = await perCallSync('direct in-process call (floor)', 15, 100_000, () => direct(a, b, c, d));
    rows.push(floor);
    const fresh = await perCallSync('instantiate per call, in-process', 15, 2_000, () =>
      (new WebAssembly.Instance(module, {}).exports.distanceMeters as (...x: number[]) => number)(a, b, c, d),
    );
    rows.push(fresh);
    const memoryModule = new WebAssembly.Module(WITH_MEMORY);
    const freshMemory = await perCallSync('instantiate per call, module with a memory', 15, 1_000, () =>
      (new WebAssembly.Instance(memoryModule, {}).exports.crc32 as (...x: number[]) => number)(0, 0),
    );
    rows.push(freshMemory);
    // The same module in its host-memory form, as the workers instantiate it: a kept memory zeroed per call.
    const hosted = hostMemoryForm(WITH_MEMORY);
    if (!hosted) throw new Error('bytes.wasm has no host-memory form');
    const hostedModule = new WebAssembly.Module(hosted.bytes);
    const supply = new InstanceSupply();
    const keptMemory = await perCallSync('instantiate per call, module with a memory, kept memory zeroed (the workers)', 15, 1_000, () => {
      const { instance, memory } = supply.instantiate('bytes', hostedModule, hosted.memory);
      try {
        return (instance.exports.crc32 as (...x: number[]) => number)(0, 0);
      } finally {
        supply.release('bytes', hosted.memory, memory);
      }
    });
    rows.push(keptMemory);

    const pool4 = new WasmPool({ size: 4 });
    try {
      await pool4.call({ bytes: GEO, exportName: 'distanceMeters', args: ARGS, timeoutMs: 5000 });
      const viaPool = await perCall('pool call (postMessage round trip)', 15, 200, () =>
        pool4.call({ bytes: GEO, exportName: 'distanceMeters', args: ARGS, timeoutMs: 5000 }),
      );
      rows.push(viaPool);
      await pool4.call({ bytes: WITH_MEMORY, exportName: 'crc32', args: [0, 0], timeoutMs: 5000 });
      rows.push(
        await perCall('pool call, module with a memory', 15, 200, () => pool4.call({ bytes: WITH_MEMORY, exportName: 'crc32', args: [0, 0], timeoutMs: 5000 })),
      );
      let dispatcher = geoDispatcher(pool4);
      let used = 0;
      const viaDispatcher = await perCall('dispatcher + pool (bridge call)', 15, 200, async () => {
        if (used++ >= 250) {
          dispatcher = geoDispatcher(pool4); // a fresh run: 256 calls per run is the budget
          used = 1;
        }
        const r = await dispatcher.bridge('geo', 'distanceMeters', ARGS);
        if (!r.ok) throw new Error(r.message);
      });
      rows.push(viaDispatcher);
      const old = await guestVisible(pool4, 9, 250, true);
      const { cold, warm: guest } = await guestVisible(pool4, 21, 250, false);
      rows.push(old.warm, cold, guest);
      printTable('wasm: one scalar call (geo distanceMeters; guest row: tileX)', rows);
      printRatio('instantiate-per-call vs direct', fresh, floor);
      printRatio('module with a memory: its own fresh memory vs a kept one zeroed', freshMemory, keptMemory);
      printRatio('pool vs direct', viaPool, floor);
      printRatio('dispatcher+pool vs pool', viaDispatcher, viaPool);
      printRatio('guest-visible vs direct', guest, floor, 'guest-visible call ≤ 150 µs median');
      console.log(`guest-visible median ${fmtMs(guest.medianMs)} (goal ≤ 150 µs)`);
    } finally {
      await pool4.dispose();
    }

    await wasmBytesRows();

    console.log('\n## wasm: pool throughput (calls/s, all issued at once)');
    console.log(`${'workers'.padEnd(8)}  ${'trivial call'.padStart(14)}  ${'~0.5 ms call'.padStart(14)}`);
    const base: number[] = [];
    for (const size of [1, 2, 4]) {
      const trivial = await throughput(size, GEO, 'distanceMeters', ARGS, 4000);
      const heavy = await throughput(size, BURN, 'burn', [BURN_N], 400);
      if (size === 1) base.push(trivial, heavy);
      const scale = (x: number, b: number | undefined) => `${x.toFixed(0)} (${(x / (b ?? x)).toFixed(2)}×)`;
      console.log(`${String(size).padEnd(8)}  ${scale(trivial, base[0]).padStart(14)}  ${scale(heavy, base[1]).padStart(14)}`);
    }
  },
};
