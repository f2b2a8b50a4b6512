// Bench rows of `wasm` for the byte and string ABI (issue 32), on the app's route: guest code in a
// sandbox worker, its dispatcher and WASM lanes there too, from a plan the bench builds like the
// code runner does. The shipped sandbox-hash pack is the WASM side; the anchors run in the same
// worker in the same run:
// - a small call: `await crc32(32 bytes)` and `await sha256(32 bytes)` against the scalar call
//   `await tileX(13.4, 10)` of the geo pack (goal: a 32-byte call ≤ 2× a scalar call);
// - 1 MB of work: SHA-256 and CRC-32 of a 1 MB Uint8Array through the pack against the same
//   algorithms written in plain JS running in the guest (what a pack without WASM would do).
// Each figure is a difference of two runs timed by the kernel's receipt (with the work, and the
// same run without it), so building the input and starting the run are not counted.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCatalog } from '../../electron/catalog/catalog.ts';
import { WasmModuleCache } from '../../electron/runtime/wasm/module-cache.ts';
import { buildWasmPlan } from '../../electron/runtime/wasm/wasm-plan.ts';
import { portedSandboxPool } from '../../electron/testing/wasm-port.ts';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import { printRatio, printTable, statsOf, type Stats } from './harness.ts';

const PACKS = [
  { dir: 'geo', name: '@nodetool-ai/sandbox-geo' },
  { dir: 'sandbox-hash', name: '@nodetool-ai/sandbox-hash' },
] as const;
const SPECIFIERS = ['@nodetool-ai/sandbox-geo/simplify-wasm', '@nodetool-ai/sandbox-hash/wasm', '@bench/memory-scalar/wasm'];
const IMPORTS =
  'import { tileX } from "@nodetool-ai/sandbox-geo/simplify-wasm";\nimport { sha256, crc32 } from "@nodetool-ai/sandbox-hash/wasm";\nimport { crcAt } from "@bench/memory-scalar/wasm";\n';

/**
 * A scalar export of a module that has a linear memory (wasm-src/bin/bytes.wasm's `crc32(ptr,
 * len)`, called with (0, 0)): the anchor that pays what every call of a memory-bearing module
 * pays, its fresh instance's memory, and none of the byte ABI's copying.
 */
function writeMemoryScalarPack(root: string): void {
  const dir = join(root, 'node_modules', '@bench', 'memory-scalar');
  mkdirSync(join(dir, 'wasm'), { recursive: true });
  cpSync(new URL('../../wasm-src/bin/bytes.wasm', import.meta.url), join(dir, 'wasm', 'bytes.wasm'));
  const manifest = {
    name: '@bench/memory-scalar',
    version: '1.0.0',
    type: 'module',
    keywords: ['sandbox-pack'],
    nodetool: {
      apiVersion: 1,
      sandboxModules: [{ name: 'wasm', kind: 'wasm', file: 'wasm/bytes.wasm', memoryPagesMax: 16, exports: [{ wasm: 'crc32', as: 'crcAt' }] }],
    },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
}

/** SHA-256 and CRC-32 in plain JS, as a pack without WASM would ship them (typed arrays, no tables per call). */
const GUEST_JS = `
const K = new Uint32Array([0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2]);
function jsSha256(data) {
  const n = data.length, total = ((n + 9 + 63) >> 6) << 6;
  const m = new Uint8Array(total); m.set(data); m[n] = 0x80;
  const bits = n * 8; m[total - 4] = bits >>> 24; m[total - 3] = bits >>> 16; m[total - 2] = bits >>> 8; m[total - 1] = bits;
  m[total - 5] = Math.floor(bits / 2 ** 32);
  const h = new Uint32Array([0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) { const j = off + i * 4; w[i] = (m[j] << 24) | (m[j + 1] << 16) | (m[j + 2] << 8) | m[j + 3]; }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (k + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
  }
  let hex = ''; for (let i = 0; i < 8; i++) hex += h[i].toString(16).padStart(8, '0');
  return hex;
}
const CRC = new Int32Array(256);
for (let i = 0; i < 256; i++) { let c = i; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; CRC[i] = c; }
function jsCrc32(data) { let c = -1; for (let i = 0; i < data.length; i++) c = CRC[(c ^ data[i]) & 255] ^ (c >>> 8); return ~c; }
`;

/**
 * 1 MB of bytes, made in the guest (not timed: the anchor run makes it too): 4 KB of varied bytes,
 * doubled by `copyWithin` to 1 MB. A loop over the whole megabyte in the guest took 100–200 ms
 * here and varied by ±50 ms from run to run, more than the WASM work being measured.
 */
const MEGABYTE =
  'const data = new Uint8Array(1 << 20);\nfor (let i = 0; i < 4096; i++) data[i] = (i * 2654435761) >>> 24;\nfor (let n = 4096; n < data.length; n *= 2) data.copyWithin(n, 0, n);\n';

interface Timer {
  /** The run's wall time (ms) as the kernel's receipt reports it; the run must answer `expect` when given. */
  once(body: string, expect?: unknown): Promise<number>;
  /** The run's value. */
  value(body: string): Promise<unknown>;
  close(): Promise<void>;
}

async function openTimer(): Promise<Timer> {
  const root = mkdtempSync(join(tmpdir(), 'bench-wasm-bytes-'));
  const sandbox = portedSandboxPool({ size: 1 });
  try {
    for (const pack of PACKS)
      cpSync(new URL(`../../packs/${pack.dir}`, import.meta.url), join(root, 'node_modules', ...pack.name.split('/')), { recursive: true });
    writeMemoryScalarPack(root);
    const catalog = await openCatalog({ root });
    if (!catalog.ok) throw new Error(catalog.message);
    const resolution = catalog.value.resolveForExecution(SPECIFIERS.map((specifier) => ({ specifier })));
    if (!resolution.ok) throw new Error(resolution.message);
    const plan = await buildWasmPlan(resolution, new WasmModuleCache());
    const run = async (body: string) => {
      const result = await sandbox.run(toKernelRequest({ code: IMPORTS + GUEST_JS + body, resolution, timeoutMs: 30_000 }), { wasm: { plan } });
      if (!result.ok) throw new Error(`bench run failed: ${result.code}: ${result.message}`);
      return result;
    };
    return {
      async once(body, expect) {
        const result = await run(body);
        if (expect !== undefined && JSON.stringify(result.value) !== JSON.stringify(expect)) {
          throw new Error(`bench run answered ${JSON.stringify(result.value)}, not ${JSON.stringify(expect)}`);
        }
        return result.receipt.wallMs;
      },
      value: async (body) => (await run(body)).value,
      close: async () => {
        await sandbox.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await sandbox.close();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Per-call cost of each of `calls` (a guest expression awaited `n` times per run), as (full − empty)
 * / n. The cases are interleaved: each round measures one empty run and one full run of every
 * case, so a noisy stretch of the machine lands on all of them alike and their ratios hold.
 */
async function perGuestCalls(timer: Timer, setup: string, cases: readonly { label: string; call: string }[], n: number, rounds: number): Promise<Stats[]> {
  const body = (call: string, k: number) => `${setup}let last;\nfor (let i = 0; i < ${k}; i++) last = await ${call};\nreturn typeof last;`;
  const diffs = cases.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const empty = await timer.once(body('0', 0));
    for (const [i, c] of cases.entries()) diffs[i]?.push(((await timer.once(body(c.call, n))) - empty) / n);
  }
  return cases.map((c, i) => statsOf(c.label, diffs[i] ?? []));
}

/** The cost of `work` (an expression over `data`) on 1 MB, as (run with it − run without) over `runs` pairs. */
async function onMegabyte(timer: Timer, label: string, work: string, expect: unknown, runs: number): Promise<Stats> {
  const diffs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const without = await timer.once(`${MEGABYTE}return null;`, null);
    const withWork = await timer.once(`${MEGABYTE}return await ${work};`, expect);
    diffs.push(withWork - without);
  }
  return statsOf(label, diffs);
}

export async function wasmBytesRows(): Promise<void> {
  const timer = await openTimer();
  try {
    // A fresh worker's engine and glue run on V8's baseline tiers at first: warm it like an app's long-lived worker.
    for (let i = 0; i < 30; i++)
      await timer.once(
        'const b = new Uint8Array(32);\nfor (let i = 0; i < 60; i++) { await tileX(13.4, 10); await crc32(b); await sha256(b); await crcAt(0, 0); }\nreturn 0;',
      );
    const setup = 'const b = new Uint8Array(32).map((_, i) => i);\n';
    const [scalar, memoryScalar, crcSmall, shaSmall] = (await perGuestCalls(
      timer,
      setup,
      [
        { label: 'scalar call: await tileX(13.4, 10) (geo, no memory)', call: 'tileX(13.4, 10)' },
        { label: 'scalar call of a module with a memory: await crcAt(0, 0)', call: 'crcAt(0, 0)' },
        { label: '32-byte call, scalar result: await crc32(32 bytes)', call: 'crc32(b)' },
        { label: '32-byte call, string result: await sha256(32 bytes)', call: 'sha256(b)' },
      ],
      200,
      41,
    )) as [Stats, Stats, Stats, Stats];
    printTable('wasm bytes: one small call, guest-visible (sandbox worker: facade + kernel + dispatcher + lane)', [scalar, memoryScalar, crcSmall, shaSmall]);
    printRatio('32-byte crc32 vs scalar (geo)', crcSmall, scalar, '≤ 2×');
    printRatio('32-byte sha256 (string result) vs scalar (geo)', shaSmall, scalar, '≤ 2×');
    printRatio('scalar call of a module with a memory vs scalar (geo)', memoryScalar, scalar);
    printRatio('32-byte sha256 vs scalar call of a module with a memory', shaSmall, memoryScalar);

    // The answers, from the guest's own JS; every timed run must give the same.
    const [sha, crc] = (await timer.value(`${MEGABYTE}return [jsSha256(data), jsCrc32(data)];`)) as [string, number];
    const anchor = { sha, crc };
    const wasmSha = await onMegabyte(timer, 'SHA-256 of 1 MB: WASM (sandbox-hash sha256)', 'sha256(data)', anchor.sha, 7);
    const jsSha = await onMegabyte(timer, 'SHA-256 of 1 MB: plain JS in the guest', 'jsSha256(data)', anchor.sha, 3);
    const wasmCrc = await onMegabyte(timer, 'CRC-32 of 1 MB: WASM (sandbox-hash crc32)', 'crc32(data)', anchor.crc, 7);
    const jsCrc = await onMegabyte(timer, 'CRC-32 of 1 MB: plain JS in the guest', 'jsCrc32(data)', anchor.crc, 3);
    printTable('wasm bytes: 1 MB of work, guest-visible (input built in the guest, not counted)', [wasmSha, jsSha, wasmCrc, jsCrc]);
    printRatio('plain JS vs WASM, SHA-256 of 1 MB', jsSha, wasmSha, 'WASM wins by a wide margin');
    printRatio('plain JS vs WASM, CRC-32 of 1 MB', jsCrc, wasmCrc, 'WASM wins by a wide margin');
  } finally {
    await timer.close();
  }
}
