// Bench section `discovery`: how long turning an install root of 50 generated packs into a catalog
// takes. "Cold in-process" builds a fresh catalog each run (discovery keeps no caches); "cold
// process" spawns a new Node process per run and times discovery inside it, so JIT, module and
// allocator state start empty (the OS file cache stays warm — that is the realistic app start).

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalog } from '../../electron/catalog/catalog.ts';
import { buildExportsModule, op } from '../../shared/testing/wasm-builder.ts';
import { measure, printTable, type BenchSection, type Stats } from './harness.ts';

const PACKS = 50;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function generateRoot(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-discovery-'));
  const wasm = buildExportsModule([{ name: 'add', params: ['i32', 'i32'], results: ['i32'], body: [op.local_get, 0, op.local_get, 1, op.i32_add] }], {
    memories: [{ min: 1, max: 1 }],
  });
  const helper = Array.from({ length: 40 }, (_, i) => `export function h${i}(x) { return x * ${i} + Math.sqrt(x); }`).join('\n');
  for (let i = 0; i < PACKS; i++) {
    const name = `@bench/pack-${i}`;
    const dir = path.join(root, 'node_modules', '@bench', `pack-${i}`);
    await mkdir(path.join(dir, 'sandbox', 'lib'), { recursive: true });
    const manifest = {
      name,
      version: '1.0.0',
      nodetool: {
        apiVersion: 1,
        sandboxModules: [
          { name: '.', kind: 'js', file: 'sandbox/index.js', description: `Pack ${i} root entry.` },
          { name: 'extra', kind: 'js', file: 'sandbox/extra.js' },
          { name: 'more', kind: 'js', file: 'sandbox/more.js' },
          { name: 'math-wasm', kind: 'wasm', file: 'sandbox/math.wasm', memoryPagesMax: 1, exports: ['add'] },
        ],
        internal: ['sandbox/lib/helper.js'],
      },
    };
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    await writeFile(path.join(dir, 'sandbox/lib/helper.js'), helper);
    await writeFile(path.join(dir, 'sandbox/index.js'), `import { h1 } from './lib/helper.js';\nexport const root = (x) => h1(x);\n`);
    await writeFile(
      path.join(dir, 'sandbox/extra.js'),
      `import { root } from '${name}';\nimport { add } from '${name}/math-wasm';\nexport const extra = async (x) => add(root(x) | 0, 1);\n`,
    );
    await writeFile(path.join(dir, 'sandbox/more.js'), `export * from './lib/helper.js';\n${helper.replaceAll('export function h', 'export function m')}`);
    await writeFile(path.join(dir, 'sandbox/math.wasm'), wasm);
    await writeFile(path.join(dir, 'SKILL.md'), `---\nname: pack-${i}\ndescription: Bench pack ${i}.\n---\n# Pack ${i}\n`);
  }
  return root;
}

async function discoverOnce(root: string): Promise<void> {
  const catalog = await openCatalog({ root });
  if (!catalog.ok) throw new Error(catalog.message);
  const ready = catalog.value.summaries().filter((s) => s.status === 'ready').length;
  if (ready !== PACKS * 4) throw new Error(`expected ${PACKS * 4} ready modules, got ${ready}`);
}

function coldProcess(root: string, runs: number): Stats {
  const script = [
    `import { openCatalog } from ${JSON.stringify(path.join(repo, 'electron/catalog/catalog.ts'))};`,
    'const start = performance.now();',
    `const c = await openCatalog({ root: ${JSON.stringify(root)} });`,
    'if (!c.ok) throw new Error(c.message);',
    'console.log(performance.now() - start);',
  ].join('\n');
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8' });
    samples.push(Number(out.trim()));
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { label: `${PACKS} packs, cold process (discovery only)`, runs, minMs: samples[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}

export const discoverySection: BenchSection = {
  name: 'discovery',
  async run() {
    const root = await generateRoot();
    try {
      const inProcess = await measure(`${PACKS} packs (200 modules), fresh catalog`, 10, () => discoverOnce(root), 1);
      const cold = coldProcess(root, 5);
      printTable('discovery (50 generated packs: 3 JS entries + internal helper + WASM + SKILL.md each)', [inProcess, cold]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
