// End to end on the real parts: the geo pack discovered from an install root, resolved by the
// catalog, evaluated by the QuickJS kernel in a sandbox worker, its WASM calls answered by the
// per-run dispatcher over that worker's WASM lanes (the app's route, from a compiled plan); the
// same runs through a main-thread dispatcher and pool give the same answers. Also the spec's "finds the binding anyway" case:
// a pack that tries to capture the temporary bridge binding during module evaluation gets nothing
// (the bridge module takes it first), and code that holds the bridge anyway gains nothing beyond
// the run's declared WASM surface.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxModuleResolutionOk } from '../../../shared/protocol/catalog.ts';
import type { KernelRunRequest } from '../../../shared/protocol/run.ts';
import { createWasmDispatcher } from '../../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { WASM_BRIDGE_MODULE_ID } from '../../../shared/protocol/wasm-bridge.ts';
import { openCatalog, type DiscoveryCatalog } from '../../catalog/catalog.ts';
import { toKernelRequest } from '../../../shared/protocol/kernel-request.ts';
import { WasmModuleCache } from './module-cache.ts';
import { buildWasmPlan } from './wasm-plan.ts';
import { WasmPool } from '../../testing/wasm-pool.ts';
import { portedSandboxPool, withWasmPort } from '../../testing/wasm-port.ts';

const GEO = '@nodetool-ai/sandbox-geo';
let root: string;
let catalog: DiscoveryCatalog;
const sandbox = portedSandboxPool({ size: 1 });
const wasm = new WasmPool({ size: 2 });
const compiled = new WasmModuleCache();
const ROUTES = ['lanes', 'main'] as const;
type Route = (typeof ROUTES)[number];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'wasm-guest-'));
  cpSync(new URL('../../../packs/geo', import.meta.url), join(root, 'node_modules', GEO), { recursive: true });
  // A hostile pack: it declares a WASM entry (so the bridge is bound while modules evaluate),
  // captures the binding in its JS entry, and exports it.
  const evil = join(root, 'node_modules', 'evil-pack');
  mkdirSync(join(evil, 'wasm'), { recursive: true });
  cpSync(new URL('../../../packs/geo/wasm/geo.wasm', import.meta.url), join(evil, 'wasm', 'geo.wasm'));
  writeFileSync(join(evil, 'index.js'), 'export const leaked = globalThis.__sandboxPacksWasmBridge;\n');
  writeFileSync(
    join(evil, 'package.json'),
    JSON.stringify({
      name: 'evil-pack',
      version: '1.0.0',
      nodetool: {
        apiVersion: 1,
        sandboxModules: [
          { name: '.', kind: 'js', file: 'index.js' },
          { name: 'math', kind: 'wasm', file: 'wasm/geo.wasm', memoryPagesMax: 1, exports: ['clamp'] },
        ],
      },
    }),
  );
  const opened = await openCatalog({ root });
  if (!opened.ok) throw new Error(opened.message);
  catalog = opened.value;
});

afterAll(async () => {
  await Promise.all([sandbox.close(), wasm.dispose()]);
  rmSync(root, { recursive: true, force: true });
});

function resolve(...specifiers: string[]): SandboxModuleResolutionOk {
  const resolution = catalog.resolveForExecution(specifiers.map((specifier) => ({ specifier })));
  if (!resolution.ok) throw new Error(resolution.message);
  return resolution;
}

type GuestModules = KernelRunRequest['modules'];

async function run(
  code: string,
  resolution: SandboxModuleResolutionOk,
  route: Route,
  extra: { entries: Record<string, string>; modules: GuestModules } = { entries: {}, modules: {} },
) {
  // The app's own translation of a resolution (run-code.ts), plus any test-only modules.
  const base = toKernelRequest({ code, resolution, timeoutMs: 10_000 });
  const request: KernelRunRequest = { ...base, entries: { ...base.entries, ...extra.entries }, modules: { ...base.modules, ...extra.modules } };
  if (route === 'lanes') return { result: await sandbox.run(request, { wasm: { plan: await buildWasmPlan(resolution, compiled) } }), usage: undefined };
  const dispatcher = createWasmDispatcher(resolution, wasm);
  try {
    return { result: await sandbox.run(request, withWasmPort({ call: (id, name, args) => dispatcher.bridge(id, name, args) })), usage: dispatcher.usage() };
  } finally {
    dispatcher.close();
  }
}

describe.each(ROUTES)('guest → facade → kernel → dispatcher → WASM (%s)', (route) => {
  it('runs the geo pack: JS entry with its WASM sibling, and the WASM entry directly', async () => {
    const { result, usage } = await run(
      [
        `import { haversine, distanceWasm, simplifyForZoom } from "${GEO}";`,
        `import { tileX, mercatorY, checkLatitude } from "${GEO}/simplify-wasm";`,
        'const js = haversine([52.52, 13.405], [48.8566, 2.3522]);',
        'const viaWasm = await distanceWasm([52.52, 13.405], [48.8566, 2.3522]);',
        'let trap;',
        'try { await checkLatitude(91); } catch (e) { trap = [e.code, e.message]; }',
        'let badArg;',
        'try { await tileX(13.4, 1.5); } catch (e) { badArg = [e.code, e.message]; }',
        'return { km: Math.round(js / 1000), same: Math.abs(js - viaWasm) < 1e-6, tile: await tileX(13.4, 10), y: await mercatorY(0),',
        '  simplified: (await simplifyForZoom([[0, 0], [0.5, 0.0001], [1, 0]], 3)).length, trap, badArg };',
      ].join('\n'),
      resolve(GEO, `${GEO}/simplify-wasm`),
      route,
    );
    expect(result).toMatchObject({
      ok: true,
      value: {
        km: 877,
        same: true,
        tile: 550,
        y: 0.5,
        simplified: 2,
        trap: ['wasm-trap', '`checkLatitude` trapped: unreachable'],
        badArg: ['wasm-argument', '`tileX` argument 2 expects an i32 (an integer), got 1.5'],
      },
    });
    // The bad-argument call never reached a worker and cost no budget; the receipt still lists it.
    if (usage) expect(usage.calls).toBe(5);
    const calls = result.receipt.calls.filter((c) => c.kind === 'wasm');
    expect(calls).toHaveLength(6);
    expect(calls.filter((c) => !c.ok).map((c) => c.code)).toEqual(['wasm-trap', 'wasm-argument']);
  });

  it('a pack never sees the bridge binding, and code holding the bridge reaches only the declared surface', async () => {
    const resolution = resolve('evil-pack', 'evil-pack/math');
    const wasmId = resolution.entries['evil-pack/math'] as string;
    const geoResolution = resolve(`${GEO}/simplify-wasm`);
    const undeclaredId = geoResolution.entries[`${GEO}/simplify-wasm`] as string;
    // The binding is taken by the bridge module before any pack evaluates (one-shot); a module
    // that re-exports the bridge's callWasm stands for any code that got hold of it anyway.
    const holder = {
      moduleId: 'wasm:holder',
      kind: 'wasm' as const,
      packName: '@t/holder',
      packVersion: '1.0.0',
      displayName: '@t/holder',
      source: `export { callWasm } from "sandbox:wasm-bridge";\n`,
      imports: { 'sandbox:wasm-bridge': WASM_BRIDGE_MODULE_ID },
      digest: 'a'.repeat(64),
    };
    const { result } = await run(
      [
        'import { leaked } from "evil-pack";',
        'import { callWasm } from "@t/holder";',
        'const out = { type: typeof leaked, global: typeof globalThis.__sandboxPacksWasmBridge };',
        'const attempt = async (...a) => { try { return { ok: true, value: await callWasm(...a) }; } catch (e) { return { ok: false, code: e.code, message: e.message }; } };',
        `out.declared = await attempt(${JSON.stringify(wasmId)}, "clamp", [5, 0, 1]);`,
        `out.notExported = await attempt(${JSON.stringify(wasmId)}, "haversineRad", [0, 0, 0, 0]);`,
        `out.otherModule = await attempt(${JSON.stringify(undeclaredId)}, "tileX", [0, 1]);`,
        `out.badArgs = await attempt(${JSON.stringify(wasmId)}, "clamp", ["5", 0, 1]);`,
        `out.forged = await attempt(${JSON.stringify(wasmId)}, "clamp", { length: 3, 0: 5, 1: 0, 2: 1 });`,
        'return out;',
      ].join('\n'),
      resolution,
      route,
      { entries: { '@t/holder': 'wasm:holder' }, modules: { 'wasm:holder': holder } },
    );
    expect(result).toMatchObject({
      ok: true,
      value: {
        type: 'undefined',
        global: 'undefined',
        declared: { ok: true, value: 1 },
        notExported: { ok: false, code: 'wasm-not-declared', message: '`haversineRad` is not an export of `evil-pack/math`' },
        otherModule: { ok: false, code: 'wasm-not-declared' },
        badArgs: { ok: false, code: 'wasm-argument', message: '`clamp` argument 1 expects a number, got a string' },
        forged: { ok: false, code: 'wasm-argument', message: '`clamp` was called without an argument list' },
      },
    });
  });
});
