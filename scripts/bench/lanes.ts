// Bench section `lanes`: what a sandbox worker's WASM lanes cost and how runs fare beside spinning
// exports (issue 30). A lane start (a worker thread: first call on a fresh lane, wall and process
// CPU) and an idle lane (threads, RSS) — the figures behind keeping one lane idle; a small WASM run
// right after a run whose two calls spun on the same worker (a spare lane started beside them);
// and small WASM runs while three lanes spin on other workers, with the spinning lanes at their
// lowered priority and, interleaved in the same process, with it undone (where this box lets a
// thread's priority be raised back).

import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { ExecutableModule } from '../../shared/protocol/catalog.ts';
import type { KernelRunRequest } from '../../shared/protocol/run.ts';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import { WASM_BRIDGE_MODULE_ID, WASM_BRIDGE_SPECIFIER } from '../../shared/protocol/wasm-bridge.ts';
import { generateWasmFacade } from '../../shared/packs/wasm-facade.ts';
import { validateWasmBinary } from '../../shared/packs/wasm-binary.ts';
import { buildWasm, op } from '../../shared/testing/wasm-builder.ts';
import { SandboxPool } from '../../electron/runtime/sandbox/sandbox-pool.ts';
import { WasmModuleCache } from '../../electron/runtime/wasm/module-cache.ts';
import { buildWasmPlan, WasmLanes, type WasmPlan } from '../../electron/runtime/wasm/wasm-plan.ts';
import { printTable, statsOf, type BenchSection } from './harness.ts';

const BYTES = buildWasm({
  funcs: [
    { type: { params: [], results: [] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end] },
    { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_add] },
  ],
  exports: ['spin', 'add'].map((name, index) => ({ name, kind: 'func' as const, index })),
});

function wasmModule(): ExecutableModule {
  const validated = validateWasmBinary(BYTES, { memoryPagesMax: 0, exports: ['spin', 'add'] });
  if (!validated.ok) throw new Error(validated.message);
  return {
    moduleId: 'wasm:t',
    kind: 'wasm',
    packName: '@t/wasm',
    packVersion: '1.0.0',
    displayName: '@t/wasm',
    source: generateWasmFacade({ moduleId: 'wasm:t', exports: validated.value.exports }),
    imports: { [WASM_BRIDGE_SPECIFIER]: WASM_BRIDGE_MODULE_ID },
    digest: 'd'.repeat(64),
    wasm: { bytes: BYTES, exports: validated.value.exports, memoryPagesMax: 0, budgets: {} },
  };
}

const threads = () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function laneCosts(plan: WasmPlan): Promise<void> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 12; i++) {
    const lanes = new WasmLanes(1);
    try {
      const used = process.cpuUsage();
      let start = performance.now();
      const dispatcher = lanes.dispatcherFor(plan);
      await dispatcher.bridge('wasm:t', 'add', [1, 2]);
      wall.push(performance.now() - start);
      const spent = process.cpuUsage(used);
      cpu.push((spent.user + spent.system) / 1000);
      start = performance.now();
      await dispatcher.bridge('wasm:t', 'add', [1, 2]);
      warm.push(performance.now() - start);
      dispatcher.close();
    } finally {
      await lanes.dispose();
    }
  }
  printTable('lanes: a lane start (a worker thread)', [
    statsOf('first call on a fresh lane (start + call), wall', wall),
    statsOf('the same, CPU of the whole process', cpu),
    statsOf('the next call on it', warm),
  ]);
  const lanes = new WasmLanes(8, undefined, 60_000);
  try {
    await sleep(200);
    const [t0, r0] = [threads(), process.memoryUsage().rss];
    // Four runs of two calls at once (a run's concurrency budget is 2): the lanes start on demand.
    const dispatchers = Array.from({ length: 4 }, () => lanes.dispatcherFor(plan));
    await Promise.all(dispatchers.flatMap((d) => [d.bridge('wasm:t', 'add', [1, 2]), d.bridge('wasm:t', 'add', [3, 4])]));
    await sleep(1000);
    const [t1, r1] = [threads(), process.memoryUsage().rss];
    console.log(
      `${lanes.workers} idle lanes: +${t1 - t0} threads, +${((r1 - r0) / 2 ** 20).toFixed(1)} MB resident (${((r1 - r0) / 2 ** 20 / lanes.workers).toFixed(1)} MB each)`,
    );
    for (const d of dispatchers) d.close();
  } finally {
    await lanes.dispose();
  }
}

/** Whether this process may raise a thread's priority back to 0 (root, or RLIMIT_NICE of 20): the A/B needs it. */
function canRaise(): boolean {
  if (process.getuid?.() === 0) return true;
  const limit = /^Max nice priority\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return Number(limit) >= 20;
}

async function besideSpins(plan: WasmPlan, mod: ExecutableModule): Promise<void> {
  const resolution = { entries: { '@t/wasm': 'wasm:t' }, modules: { 'wasm:t': mod } };
  const request = (code: string, timeoutMs = 5000): KernelRunRequest => toKernelRequest({ code, resolution, timeoutMs });
  const ports = { wasm: { plan } };
  const small = request('import { add } from "@t/wasm";\nreturn await add(2, 3);');
  const timed = async (pool: SandboxPool) => {
    const result = await pool.run(small, ports);
    if (!result.ok) throw new Error(`a small WASM run failed: ${result.message}`);
    return result.receipt.wallMs;
  };

  // The next run on a worker whose run's two calls spun to its deadline.
  const one = new SandboxPool({ size: 1 });
  try {
    for (let i = 0; i < 5; i++) await timed(one);
    const rows: Record<string, number[]> = { 'after an ordinary WASM run': [], 'after a run whose 2 calls spun': [] };
    for (let i = 0; i < 10; i++) {
      for (const [label, before] of [
        ['after an ordinary WASM run', small],
        ['after a run whose 2 calls spun', request('import { spin } from "@t/wasm";\nawait Promise.all([spin(), spin()]);', 200)],
      ] as const) {
        const previous = one.run(before, ports);
        rows[label]!.push(await timed(one));
        await previous;
      }
    }
    printTable(
      'lanes: a small WASM run on the same worker (receipt wall time)',
      Object.entries(rows).map(([label, s]) => statsOf(label, s)),
    );
  } finally {
    await one.close();
  }

  // Small runs on two workers while two runs spin three lanes on the two others.
  const raise = canRaise();
  const pool = new SandboxPool({ size: 4 });
  let undo: ReturnType<typeof setInterval> | undefined;
  try {
    for (let k = 0; k < 3; k++) await Promise.all(Array.from({ length: 4 }, () => timed(pool)));
    const rows: Record<string, number[]> = {};
    const cases = [
      ['quiet', false, false],
      ['3 lanes spinning (lowered)', true, false],
      ...(raise ? ([['3 lanes spinning, priority undone', true, true]] as const) : []),
    ] as const;
    for (let round = 0; round < 5; round++) {
      for (const [label, spin, undone] of cases) {
        // B side: put every thread of the process back to the default priority every 2 ms.
        undo = undone
          ? setInterval(() => {
              for (const tid of readdirSync('/proc/self/task').map(Number)) {
                try {
                  if (getPriority(tid) !== 0) setPriority(tid, 0);
                } catch {
                  // a thread that just exited
                }
              }
            }, 2)
          : undefined;
        const spinners = spin
          ? [
              pool.run(request('import { spin } from "@t/wasm";\nawait spin();', 1500), ports),
              pool.run(request('import { spin } from "@t/wasm";\nawait Promise.all([spin(), spin()]);', 1500), ports),
            ]
          : [];
        await sleep(200);
        for (let i = 0; i < 30; i++) (rows[label] ??= []).push(await timed(pool));
        await Promise.all(spinners);
        if (undo) clearInterval(undo);
        undo = undefined;
      }
    }
    printTable(
      `lanes: small WASM runs one after another beside spinning exports (receipt wall time)${raise ? '' : '; the undone row needs leave to raise a priority'}`,
      Object.entries(rows).map(([label, s]) => statsOf(label, s)),
    );
  } finally {
    if (undo) clearInterval(undo);
    await pool.close();
  }
}

export const lanesSection: BenchSection = {
  name: 'lanes',
  async run() {
    const mod = wasmModule();
    const plan = await buildWasmPlan({ modules: { 'wasm:t': mod } }, new WasmModuleCache());
    await laneCosts(plan);
    await besideSpins(plan, mod);
  },
};
