#!/usr/bin/env node
// Stages the backend the packaged app runs: esbuild bundles of the Electron main process, the CLI
// and every worker entry (plain JS, no tsx), plus every runtime data file from the one asset
// registry (electron/platform/assets.ts) — the quickjs-ng engine, esbuild and its platform
// binary, the npm the installer runs, the renderer and preload builds, the registry index, and
// the shipped packs as tarballs under _sandbox/<pack>/. It writes asset-manifest.json with a
// sha256 per staged file, which scripts/verify-backend-bundle.mjs checks.
//
// The build fails when a registered source is missing, and when a bundle references a data file
// the registry does not cover: every `import.meta.url` / `import.meta.resolve` use and every
// external import in the output must be one the registry (or the short list below) accounts for.
//
// Usage: node scripts/bundle-backend.mjs [--out DIR] [--no-ui-build] [--entry NAME=FILE ...]
//   --no-ui-build  reuse out/renderer and out/electron/preload.cjs instead of rebuilding them
//   --entry        one more code entry bundled as NAME.mjs (the load bench's server, so it runs as
//                  the packaged backend does); not listed in the manifest, so never shipped

import * as acorn from 'acorn';
import * as walk from 'acorn-walk';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = 'asset-manifest.json';

class BundleError extends Error {
  name = 'BundleError';
}

function parseArgs(argv) {
  const args = { out: path.join(ROOT, 'dist', 'backend'), uiBuild: true, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') args.out = path.resolve(argv[++i] ?? '');
    else if (argv[i] === '--no-ui-build') args.uiBuild = false;
    else if (argv[i] === '--entry') {
      const [name, file] = (argv[++i] ?? '').split('=');
      if (!name || !file || !/^[a-z][a-z0-9-]*$/.test(name)) throw new BundleError('--entry takes NAME=FILE (NAME: lower-case letters, digits, dashes)');
      args.extra.push({ out: name, entry: path.resolve(file) });
    } else throw new BundleError(`unknown option ${argv[i]}`);
  }
  return args;
}

/** The bundled entries that are code, not registered data: what electron-builder and the CLI start. */
const CODE_ENTRIES = [
  { out: 'main', entry: 'electron/main/main.ts', why: 'the Electron main process' },
  { out: 'cli', entry: 'electron/platform/cli-bundle-entry.ts', why: 'the sandbox-packs CLI' },
];

/** Externals the bundle may import: Electron itself (provided by the runtime). */
const EXTERNALS = ['electron'];

/**
 * `esbuild` is not bundled (its API spawns its binary by a path relative to itself) and not left
 * as a bare import either (hoisted above our code, it would read ESBUILD_BINARY_PATH too early and
 * find its binary inside the asar archive): every import of it goes to esbuild-runtime.ts, which
 * loads the staged API and binary through the asset registry.
 */
const esbuildThroughRegistry = {
  name: 'esbuild-through-registry',
  setup(build) {
    build.onResolve({ filter: /^esbuild$/ }, () => ({ path: path.join(ROOT, 'electron/platform/esbuild-runtime.ts') }));
  },
};

/**
 * `import.meta` uses the coverage check accepts besides registered `new URL(<file>, import.meta.url)`.
 * Each is tied to a reason; anything else fails the build. The patterns are exact on purpose: a
 * dependency update that changes them fails loudly here rather than silently in the packaged app.
 */
const ALLOWED_META = [
  // The registry's own base (electron/platform/assets.ts).
  /\bSANDBOX_PACKS_ASSET_BASE\d* = import\.meta\.url\b/g,
  // tsx's dev bootstrap in the sandbox pool: taken only for a `.ts` worker entry, never in the bundle.
  /\bimport\.meta\.resolve\("tsx\/esm\/api"\)/g,
  // quickjs-ng's emscripten glue: a require for node:fs, and the base it resolves
  // "emscripten-module.wasm" against (asset quickjs-ng-wasm, staged next to every bundle).
  /\bvar require\d* = a\(import\.meta\.url\);/g,
  /\bw = import\.meta\.url, y = "",/g,
];

async function sha256File(file) {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

async function listFiles(dir, base = dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, base)));
    else if (entry.isFile()) out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}

async function exists(file) {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Every data reference in a bundle's text that is not accounted for. */
export function uncoveredReferences(text, registeredFiles) {
  const problems = [];
  let rest = text;
  for (const pattern of ALLOWED_META) rest = rest.replace(pattern, '');
  const urlRefs = /new URL\(\s*(["'`])([^"'`]+)\1\s*,\s*import\.meta\.url\s*\)/g;
  for (const match of rest.matchAll(urlRefs)) {
    const file = match[2].replace(/^\.\//, '');
    if (!registeredFiles.has(file)) problems.push(`new URL(${JSON.stringify(match[2])}, import.meta.url) is not a registered asset`);
  }
  rest = rest.replace(urlRefs, '');
  const stray = rest.match(/import\.meta\.(?:url|resolve|dirname|filename)[^\n]{0,60}/g) ?? [];
  for (const use of stray) problems.push(`unregistered data reference: ${use.trim()}`);
  for (const spec of runtimeImports(text)) {
    if (spec.startsWith('node:') || spec.startsWith('.') || spec.startsWith('/')) continue;
    const bare = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (!EXTERNALS.includes(bare) && !isBuiltin(spec))
      problems.push(`the bundle imports "${spec}" at run time, which is neither bundled nor a registered asset`);
  }
  return problems;
}

/**
 * The module specifiers the code loads: static and dynamic imports, re-exports and require() calls
 * with a literal argument, read from the syntax tree, so a specifier inside a comment or a string
 * (ajv's generated-code templates say `require("ajv/dist/runtime/equal")`) is not mistaken for one.
 * Text that does not parse as a module falls back to a textual scan that errs towards reporting.
 */
function runtimeImports(text) {
  let ast;
  try {
    ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' });
  } catch {
    const textual =
      /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']*)["']|(?:^|[\s;(])import\(\s*["']([^"']*)["']\s*\)|\brequire\(\s*["']([^"']*)["']\s*\)/g;
    return [...text.matchAll(textual)].map((m) => m[1] ?? m[2] ?? m[3]);
  }
  const specs = [];
  const literal = (node) => (node?.type === 'Literal' && typeof node.value === 'string' ? specs.push(node.value) : undefined);
  walk.simple(ast, {
    ImportDeclaration: (node) => literal(node.source),
    ExportNamedDeclaration: (node) => literal(node.source),
    ExportAllDeclaration: (node) => literal(node.source),
    ImportExpression: (node) => literal(node.source),
    CallExpression: (node) => (node.callee.type === 'Identifier' && node.callee.name === 'require' ? literal(node.arguments[0]) : undefined),
  });
  return specs;
}

const builtins = new Set(builtinModules);
function isBuiltin(spec) {
  return builtins.has(spec.split('/')[0]) || builtins.has(spec);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  register();
  const { ASSETS } = await import('../electron/platform/assets.ts');
  const { buildPackTarball } = await import('../electron/first-run/pack-tarball.ts');
  const esbuild = await import('esbuild');
  const started = performance.now();
  const failures = [];

  if (args.uiBuild) {
    // A production build: under NODE_ENV=test or development, React's dev JSX embeds source paths.
    process.env.NODE_ENV = 'production';
    await import('./build-renderer.mjs');
    await import('./build-electron.mjs');
  }

  // Sources first: a missing one names the asset and why the backend needs it.
  const devPath = (asset) => ('repo' in asset.dev ? path.join(ROOT, asset.dev.repo) : path.join(ROOT, 'node_modules', asset.dev.pkg, asset.dev.file));
  for (const asset of ASSETS) {
    const source =
      asset.stage === 'pack' || asset.stage === 'precompiled' || asset.stage === 'bundle'
        ? path.join(ROOT, asset.bundleEntry ?? asset.dev.repo)
        : devPath(asset);
    if (!(await exists(source))) failures.push(`asset "${asset.id}" (${asset.why}): source ${path.relative(ROOT, source)} is missing`);
    for (const file of asset.files ?? []) {
      if (!(await exists(path.join(source, file)))) failures.push(`asset "${asset.id}": ${path.relative(ROOT, path.join(source, file))} is missing`);
    }
  }
  if (failures.length) throw new BundleError(failures.join('\n'));

  await rm(args.out, { recursive: true, force: true });
  await mkdir(args.out, { recursive: true });

  // One esbuild run, one standalone ESM file per entry (no shared chunks: a worker starts from its own file).
  const entryPoints = {};
  for (const entry of CODE_ENTRIES) entryPoints[entry.out] = path.join(ROOT, entry.entry);
  for (const entry of args.extra) entryPoints[entry.out] = entry.entry;
  for (const asset of ASSETS.filter((a) => a.stage === 'bundle')) {
    entryPoints[asset.staged.replace(/\.mjs$/, '')] = path.join(ROOT, asset.bundleEntry ?? asset.dev.repo);
  }
  const result = await esbuild.build({
    entryPoints,
    outdir: args.out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNALS,
    plugins: [esbuildThroughRegistry],
    define: {
      __SANDBOX_PACKS_BUNDLE__: 'true',
      __SANDBOX_PACKS_VERSION__: JSON.stringify(JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')).version),
    },
    // Bundled CommonJS dependencies call require() for Node builtins; ESM output has none of its own.
    banner: { js: "import { createRequire as __spCreateRequire } from 'node:module'; const require = __spCreateRequire(import.meta.url);" },
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });

  // Coverage: every data reference left in the output must be a registered staged file.
  const registeredFiles = new Set(ASSETS.map((a) => a.staged));
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.resolve(ROOT, file));
  for (const output of outputs) {
    const text = (await readFile(output, 'utf8')).replace(
      'const require = __spCreateRequire(import.meta.url);',
      'const require = __spCreateRequire(/*banner*/);',
    );
    for (const problem of uncoveredReferences(text, registeredFiles)) failures.push(`${path.basename(output)}: ${problem}`);
  }
  if (failures.length) throw new BundleError(`the bundle loads files the asset registry does not cover:\n${failures.join('\n')}`);

  // Stage the data files.
  const manifestAssets = [];
  for (const asset of ASSETS) {
    const target = path.join(args.out, ...asset.staged.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    if (asset.stage === 'file') await cp(devPath(asset), target);
    else if (asset.stage === 'dir') {
      const source = devPath(asset);
      const excluded = (file) => (asset.exclude ?? []).some((top) => file === top || file.startsWith(`${top}/`));
      const files = asset.files ?? (await listFiles(source)).filter((file) => !excluded(file));
      for (const file of files) {
        await mkdir(path.dirname(path.join(target, file)), { recursive: true });
        await cp(path.join(source, file), path.join(target, file), { preserveTimestamps: true });
      }
    } else if (asset.stage === 'pack') {
      // Built (or reused, by content key) in out/_sandbox/, the same place dev's first run uses.
      const built = await buildPackTarball(path.join(ROOT, asset.bundleEntry), path.dirname(path.join(ROOT, asset.dev.repo)));
      await cp(built.file, target);
    } else if (asset.stage === 'precompiled') {
      // The shipped packs' npm modules compiled once (electron/first-run/precompiled.ts), from the
      // tarballs staged above; reused by content key from out/_sandbox/precompiled/ like them.
      const { buildPrecompiledFile } = await import('../electron/first-run/precompiled.ts');
      const { SHIPPED_PACKS } = await import('../electron/platform/assets.ts');
      const tarballs = SHIPPED_PACKS.map((pack) => ({ pack, file: path.join(ROOT, 'out', '_sandbox', pack.dir, 'pack.tgz') }));
      const built = await buildPrecompiledFile(tarballs, path.dirname(path.join(ROOT, asset.dev.repo)));
      await cp(built.file, target);
    }
    // 'bundle' assets were written by esbuild.
    const isDir = (await stat(target)).isDirectory();
    const files = isDir ? await listFiles(target) : [''];
    manifestAssets.push({
      id: asset.id,
      staged: asset.staged,
      unpacked: asset.unpacked,
      files: await Promise.all(
        files.map(async (file) => {
          const full = file ? path.join(target, file) : target;
          return { path: file ? `${asset.staged}/${file}` : asset.staged, sha256: await sha256File(full), bytes: (await stat(full)).size };
        }),
      ),
    });
  }
  const entries = await Promise.all(
    CODE_ENTRIES.map(async (entry) => ({ file: `${entry.out}.mjs`, why: entry.why, sha256: await sha256File(path.join(args.out, `${entry.out}.mjs`)) })),
  );
  const manifest = { format: 1, builtAt: new Date().toISOString(), platform: `${process.platform}-${process.arch}`, entries, assets: manifestAssets };
  await writeFile(path.join(args.out, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);

  const bytes = manifestAssets.flatMap((a) => a.files).reduce((sum, f) => sum + f.bytes, 0);
  console.log(
    `backend staged → ${path.relative(process.cwd(), args.out) || '.'}: ${entries.length} entries, ${manifestAssets.length} assets (${(bytes / 1024 / 1024).toFixed(1)} MB), ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof BundleError ? `bundle-backend failed:\n${error.message}` : error);
    process.exit(1);
  });
}
