// Bench section `compiler`: discovery of a managed root with every bridge pack installed (from
// the local registry, by the real installer), with a cold compile cache (every npm module
// bundled twice by esbuild and probed in quickjs-ng) against a warm one (inputs re-hashed, nothing
// bundled). Goal: warm ≥ 20× faster than cold. Also prints each bridge pack's bundle size, raw
// and minified, against the 1 MB cap — the figures the README's table records.

import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { openCatalog } from '../../electron/catalog/catalog.ts';
import { BRIDGE_PACKS, installBridgePacks } from '../../electron/testing/bridge-pack-harness.ts';
import { bundleEntry, type EsbuildPort } from '../../electron/compiler/bundle.ts';
import { entryShape, generatedEntry, resolutionEntry } from '../../electron/compiler/cjs-exports.ts';
import { CACHE_DIR } from '../../electron/compiler/compile-cache.ts';
import { dependencyClosure } from '../../electron/compiler/dependency-closure.ts';
import { createNpmCompiler } from '../../electron/compiler/npm-compiler.ts';
import { activePackNames } from '../../electron/install/index.ts';
import { formatBytes, LIMITS } from '../../shared/protocol/index.ts';
import { fmtMs, measure, printRatio, printTable, type BenchSection } from './harness.ts';

const minified: EsbuildPort = { version: esbuild.version, build: (o) => esbuild.build(o) };
const raw: EsbuildPort = { version: esbuild.version, build: (o) => esbuild.build({ ...o, minify: false }) };

/** Raw and minified bundle sizes of one pack's npm module, the way the compiler builds it. */
async function bundleSizes(root: string, packDir: string, npmName: string): Promise<{ raw: number; minified: number } | string> {
  const closure = await dependencyClosure(root, packDir, npmName);
  if (!closure.ok) return closure.message;
  const first = await bundleEntry(minified, root, closure.value, packDir, resolutionEntry(npmName), npmName);
  if (!first.ok) return first.message;
  const entryInput = Object.entries(first.value.metafile.inputs).find(([f]) => f.endsWith('<sandbox-entry>'))?.[1];
  const entryFile = entryInput?.imports.find((i) => i.original === npmName)?.path;
  if (!entryFile) return 'no entry';
  const shape = await entryShape(root, first.value.metafile, entryFile, npmName);
  if (!shape.ok) return shape.message;
  const source = generatedEntry(npmName, shape.value);
  const [a, b] = await Promise.all([
    bundleEntry(raw, root, closure.value, packDir, source, npmName),
    bundleEntry(minified, root, closure.value, packDir, source, npmName),
  ]);
  if (!a.ok || !b.ok) return 'bundle failed';
  return { raw: Buffer.byteLength(a.value.code), minified: Buffer.byteLength(b.value.code) };
}

export const compilerSection: BenchSection = {
  name: 'compiler',
  async run() {
    const bridge = await installBridgePacks();
    try {
      const { root } = bridge;
      const discover = async () => {
        const opened = await openCatalog({ root, onlyPacks: () => activePackNames(root), compiler: createNpmCompiler({ root }) });
        if (!opened.ok) throw new Error(opened.message);
        return opened.value.summaries();
      };
      const cold = await measure(
        'discovery, cold compile cache (6 bridge packs)',
        3,
        async () => {
          await fs.rm(path.join(root, CACHE_DIR), { recursive: true, force: true });
          await discover();
        },
        0,
      );
      await discover();
      const warm = await measure('discovery, warm compile cache (6 bridge packs)', 20, discover);
      printTable('compiler: discovery of all bridge packs', [cold, warm]);
      printRatio('cold / warm (higher is better)', cold, warm, 'warm ≥ 20× faster than cold');

      const summaries = await discover();
      console.log(`\n### bridge pack bundles (cap ${formatBytes(LIMITS.bundledJsBytes)} minified)`);
      console.log('| pack | library | raw | minified | % of cap | cold compile | warm compile | status |');
      console.log('|---|---|---:|---:|---:|---:|---:|---|');
      for (const pack of BRIDGE_PACKS) {
        const packDir = path.join(root, 'node_modules', ...pack.name.split('/'));
        const sizes = await bundleSizes(root, packDir, pack.library);
        const summary = summaries.find((s) => s.packName === pack.name);
        const req = { packDir, packName: pack.name, packVersion: '1.0.0', npmName: pack.library, specifier: pack.name };
        await fs.rm(path.join(root, CACHE_DIR), { recursive: true, force: true });
        const coldOne = await measure('cold', 1, () => createNpmCompiler({ root }).compile(req), 0);
        const warmOne = await measure('warm', 10, () => createNpmCompiler({ root }).compile(req));
        const status = summary?.status === 'ready' ? 'ready' : `skipped: ${summary?.code ?? '?'} (${summary?.reason ?? ''})`;
        const times = `${fmtMs(coldOne.medianMs)} | ${fmtMs(warmOne.medianMs)}`;
        if (typeof sizes === 'string') console.log(`| ${pack.name} | ${pack.library} | – | – | – | ${times} | ${status} — ${sizes} |`);
        else
          console.log(
            `| ${pack.name} | ${pack.library} | ${formatBytes(sizes.raw)} | ${formatBytes(sizes.minified)} | ${((100 * sizes.minified) / LIMITS.bundledJsBytes).toFixed(1)}% | ${times} | ${status} |`,
          );
      }
    } finally {
      await bridge.dispose();
    }
  },
};
