// The committed reference binaries must be exactly what the committed sources build to, and the
// geo pack's manifest must accept its own binary. Runs the real AssemblyScript compiler.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NodetoolManifestSchema, PackageJsonSchema } from '../shared/protocol/manifest.ts';
import { validateWasmBinary } from '../shared/packs/wasm-binary.ts';

const run = promisify(execFile);
const root = new URL('..', import.meta.url);

describe('scripts/build-wasm.mjs', () => {
  it('rebuilds every committed reference binary byte for byte', async () => {
    const { stdout } = await run(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: root });
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.replace(/ \(\d+ bytes\)$/, '')),
    ).toEqual(['ok    packs/geo/wasm/geo.wasm', 'ok    wasm-src/bin/bytes.wasm', 'ok    packs/sandbox-hash/wasm/hash.wasm']);
  }, 120_000);

  it('the geo pack manifest accepts its binary with the declared signatures', () => {
    const pkg = PackageJsonSchema.parse(JSON.parse(readFileSync(new URL('packs/geo/package.json', root), 'utf8')));
    const manifest = NodetoolManifestSchema.parse(pkg.nodetool);
    const entry = manifest.sandboxModules?.find((m) => m.kind === 'wasm');
    if (entry?.kind !== 'wasm') throw new Error('geo pack has no wasm entry');
    const bytes = new Uint8Array(readFileSync(new URL(`packs/geo/${entry.file}`, root)));
    const result = validateWasmBinary(bytes, entry);
    expect(result.ok && result.value.exports.map((e) => `${e.as}(${e.params.join(',')}) -> ${e.results.join(',') || 'void'}`)).toEqual([
      'haversineRad(f64,f64,f64,f64) -> f64',
      'distanceMeters(f64,f64,f64,f64) -> f64',
      'segmentDistance(f64,f64,f64,f64,f64,f64) -> f64',
      'simplifyTolerance(i32) -> f64',
      'clamp(f64,f64,f64) -> f64',
      'mercatorY(f32) -> f32',
      'tileX(f64,i32) -> i32',
      'checkLatitude(f64) -> void',
    ]);
    // No imports, and memory bounded at one page: what the build flags promise.
    const module = new WebAssembly.Module(bytes);
    expect(WebAssembly.Module.imports(module)).toEqual([]);
    expect(WebAssembly.Module.exports(module).some((e) => e.kind === 'memory')).toBe(false);
  });

  it('the geo module’s table-free math agrees with JS Math', () => {
    const bytes = new Uint8Array(readFileSync(new URL('packs/geo/wasm/geo.wasm', root)));
    const geo = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as Record<string, (...a: number[]) => number>;
    const DEG = Math.PI / 180;
    const haversine = (a: number, b: number, c: number, d: number) => {
      const s1 = Math.sin(((c - a) * DEG) / 2);
      const s2 = Math.sin(((d - b) * DEG) / 2);
      return 2 * Math.asin(Math.sqrt(Math.min(1, s1 * s1 + Math.cos(a * DEG) * Math.cos(c * DEG) * s2 * s2)));
    };
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) {
      const [a, b, c, d] = [rand() * 180 - 90, rand() * 720 - 360, rand() * 180 - 90, rand() * 720 - 360];
      expect(Math.abs((geo.haversineRad as (...a: number[]) => number)(a, b, c, d) - haversine(a, b, c, d))).toBeLessThan(1e-13);
      const lat = rand() * 170 - 85;
      const mercator = 0.5 - Math.log(Math.tan(Math.PI / 4 + (lat * DEG) / 2)) / (2 * Math.PI);
      expect(Math.abs((geo.mercatorY as (x: number) => number)(lat) - Math.fround(mercator))).toBeLessThan(5e-7);
    }
    // Beyond the reduction range the module answers NaN instead of a wrong number.
    expect((geo.haversineRad as (...a: number[]) => number)(0, 0, 0, 1e9)).toBeNaN();
  });

  it('the bytes reference module computes CRC-32 over linear memory', () => {
    const bytes = new Uint8Array(readFileSync(new URL('wasm-src/bin/bytes.wasm', root)));
    expect(validateWasmBinary(bytes, { memoryPagesMax: 16, exports: ['alloc', 'crc32'] }).ok).toBe(true);
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}) as unknown as {
      exports: { alloc(n: number): number; crc32(p: number, n: number): number; memory: WebAssembly.Memory };
    };
    const input = new TextEncoder().encode('123456789');
    const ptr = exports.alloc(input.length);
    new Uint8Array(exports.memory.buffer, ptr, input.length).set(input);
    expect(exports.crc32(ptr, input.length) >>> 0).toBe(0xcbf43926); // the standard check value
  });
});
