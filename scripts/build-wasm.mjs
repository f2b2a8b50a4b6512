#!/usr/bin/env node
// Builds the reference WASM modules from wasm-src/ with the AssemblyScript compiler pinned in
// package.json, so the committed binaries are reproducible from committed sources: a test
// rebuilds them in memory and requires byte equality. The flags are the v1 contract made
// concrete — `--runtime stub` (no GC, no runtime exports), `--use abort=` (drops the `env.abort`
// import, so a failed check traps instead), `--maximumMemory` (every memory declares a maximum),
// `--noExportMemory` where the host has no business reading memory — and no debug info, so the
// output carries no file paths.
//
//   node scripts/build-wasm.mjs          write the binaries
//   node scripts/build-wasm.mjs --check  exit 1 if a committed binary differs from a fresh build

import asc from 'assemblyscript/asc';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each reference module: its source, where the binary is committed, and its compiler flags. */
export const REFERENCE_MODULES = [
  {
    name: 'geo',
    source: 'wasm-src/geo.ts',
    output: 'packs/geo/wasm/geo.wasm',
    // Table-free math (wasm-src/geo-math.ts): the module has no linear memory at all, which keeps
    // instance-per-call cheap. `--noExportMemory` keeps it that way if a memory ever appears.
    flags: ['--noExportMemory'],
  },
  {
    name: 'bytes',
    source: 'wasm-src/bytes.ts',
    output: 'wasm-src/bin/bytes.wasm',
    // Exports memory and `alloc` on purpose: that is what a future byte ABI would drive.
    flags: ['--initialMemory', '1', '--maximumMemory', '16'],
  },
  {
    name: 'hash',
    source: 'wasm-src/hash.ts',
    output: 'packs/sandbox-hash/wasm/hash.wasm',
    // The canonical ABI's core lowering (docs/wasm-host.md): memory and `cabi_realloc` exported.
    // 160 pages (10 MiB) hold a 4 MiB input and its base64 (the largest any export allocates:
    // 4 MiB + 5.33 MiB); packs/sandbox-hash/SKILL.md states the per-export input limits.
    flags: ['--initialMemory', '1', '--maximumMemory', '160'],
  },
];

const COMMON_FLAGS = ['-O3', '--noAssert', '--runtime', 'stub', '--use', 'abort='];

/** Compile one reference module in memory; returns the binary. */
export async function buildModule(mod) {
  let binary = null;
  const stderr = [];
  const result = await asc.main([join(ROOT, mod.source), ...COMMON_FLAGS, ...mod.flags, '--outFile', 'out.wasm'], {
    writeFile(name, contents) {
      if (name.endsWith('.wasm')) binary = contents;
    },
    stderr: {
      write(chunk) {
        stderr.push(String(chunk));
        return true;
      },
    },
  });
  if (result.error || !binary) throw new Error(`asc failed for ${mod.source}: ${result.error?.message ?? 'no output'}\n${stderr.join('')}`);
  return Uint8Array.from(binary);
}

/** Build every reference module in memory: `{ name, output, bytes }[]`. */
export async function buildAll() {
  const out = [];
  for (const mod of REFERENCE_MODULES) out.push({ name: mod.name, output: mod.output, bytes: await buildModule(mod) });
  return out;
}

async function main() {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const built of await buildAll()) {
    const path = join(ROOT, built.output);
    if (check) {
      const committed = await readFile(path).catch(() => null);
      const same = committed !== null && Buffer.compare(committed, Buffer.from(built.bytes)) === 0;
      console.log(`${same ? 'ok   ' : 'STALE'} ${built.output} (${built.bytes.length} bytes)`);
      if (!same) stale++;
    } else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, built.bytes);
      console.log(`wrote ${built.output} (${built.bytes.length} bytes)`);
    }
  }
  if (stale) {
    console.error(`${stale} binary(ies) differ from a fresh build: run node scripts/build-wasm.mjs`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
