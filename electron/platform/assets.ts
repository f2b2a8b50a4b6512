// The one registry of every data file the backend loads at run time, and the resolver the code
// that loads them goes through. A packaged app flattens paths (spec, Facts 8): a worker entry, the
// quickjs-ng engine binary or esbuild's platform binary that dev finds next to its source is
// somewhere else in the staged bundle, or inside an asar archive a child process cannot read.
// So each asset has a dev location (repo-relative or inside a package) and a staged location
// (relative to the backend root), and scripts/bundle-backend.mjs stages exactly this list, writes
// its sha256s, and fails when the bundled code references a file that is not registered here.
// Invariant: the layout is decided at build time (BUNDLED), never guessed from the file system.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

declare const __SANDBOX_PACKS_BUNDLE__: boolean | undefined;

/**
 * True inside the staged bundle (set by esbuild's define), false in a dev checkout. Which layout we
 * run in is decided at build time: bundle-backend defines __SANDBOX_PACKS_BUNDLE__, so the staged
 * bundle never guesses from the file system, and a dev checkout (tsx) never sees the bundle's
 * paths.
 */
export const BUNDLED: boolean = typeof __SANDBOX_PACKS_BUNDLE__ !== 'undefined' && __SANDBOX_PACKS_BUNDLE__ === true;

/** How bundle-backend produces the staged copy. */
export type StageKind =
  /** esbuild bundles `dev` (an entry module) into one plain-JS ESM file at `staged`. */
  | 'bundle'
  /** A file copied byte for byte. */
  | 'file'
  /** A directory copied with everything in it. */
  | 'dir'
  /** A shipped pack: `npm pack` of the pack with its production dependencies bundled in. */
  | 'pack'
  /** The shipped packs' npm modules compiled into cache entries (electron/first-run/precompiled.ts). */
  | 'precompiled';

export interface AssetSpec {
  readonly id: string;
  /** Why the backend needs it at run time (shown by the bundle script when it is missing). */
  readonly why: string;
  readonly stage: StageKind;
  /** In a dev checkout: a repo-relative path, or a path inside an installed package. */
  readonly dev: { readonly repo: string } | { readonly pkg: string; readonly file: string };
  /** For 'dir' assets: the only files staged (package-relative), when not everything is needed. */
  readonly files?: readonly string[];
  /** For 'dir' assets staged whole: top-level entries left out (documentation nobody reads at run time). */
  readonly exclude?: readonly string[];
  /** For 'bundle' assets whose dev form is a tsx boot file: the module esbuild bundles instead. */
  readonly bundleEntry?: string;
  /** In the staged tree, relative to the backend root (POSIX separators). */
  readonly staged: string;
  /**
   * Must live outside the asar archive: read by another process (npm reads a pack tarball, the
   * OS executes esbuild) or started as a worker thread.
   */
  readonly unpacked: boolean;
}

/** The packs the app ships and seeds on first run: folder under packs/ → package name. */
export const SHIPPED_PACKS = [
  { dir: 'sandbox-yaml', name: '@nodetool-ai/sandbox-yaml' },
  { dir: 'sandbox-csv', name: '@nodetool-ai/sandbox-csv' },
  { dir: 'sandbox-xml', name: '@nodetool-ai/sandbox-xml' },
  { dir: 'sandbox-diff', name: '@nodetool-ai/sandbox-diff' },
  { dir: 'sandbox-zip', name: '@nodetool-ai/sandbox-zip' },
  { dir: 'sandbox-dates', name: '@nodetool-ai/sandbox-dates' },
  { dir: 'sandbox-validation', name: '@nodetool-ai/sandbox-validation' },
  { dir: 'sandbox-markdown', name: '@nodetool-ai/sandbox-markdown' },
  { dir: 'sandbox-toml', name: '@nodetool-ai/sandbox-toml' },
  { dir: 'sandbox-stats', name: '@nodetool-ai/sandbox-stats' },
  { dir: 'sandbox-html', name: '@nodetool-ai/sandbox-html' },
  { dir: 'geo', name: '@nodetool-ai/sandbox-geo' },
  { dir: 'sandbox-hash', name: '@nodetool-ai/sandbox-hash' },
] as const;

export type ShippedPack = (typeof SHIPPED_PACKS)[number];

/** esbuild's platform package and the binary inside it, for this machine. */
export function esbuildBinary(platform: NodeJS.Platform = process.platform, arch: string = process.arch): { pkg: string; file: string } {
  const pkg = `@esbuild/${platform}-${arch}`;
  return { pkg, file: platform === 'win32' ? 'esbuild.exe' : 'bin/esbuild' };
}

const binary = esbuildBinary();

export const ASSETS = [
  {
    id: 'sandbox-worker',
    why: 'the sandbox worker thread that runs guest code on quickjs-ng',
    stage: 'bundle',
    dev: { repo: 'electron/runtime/sandbox/sandbox-worker.ts' },
    staged: 'sandbox-worker.mjs',
    unpacked: true,
  },
  {
    id: 'wasm-worker',
    why: 'the WASM pool worker thread that runs pack WASM exports',
    stage: 'bundle',
    dev: { repo: 'electron/runtime/wasm/wasm-worker.mjs' },
    staged: 'wasm-worker.mjs',
    unpacked: true,
  },
  {
    id: 'probe-worker',
    why: "the compiler's admission probe worker thread",
    stage: 'bundle',
    // Dev starts a boot file that registers tsx; the bundle starts the compiled worker itself.
    dev: { repo: 'electron/compiler/probe-worker-boot.mjs' },
    bundleEntry: 'electron/compiler/probe-worker.ts',
    staged: 'probe-worker.mjs',
    unpacked: true,
  },
  {
    id: 'quickjs-ng-wasm',
    why: 'the quickjs-ng engine; the variant loads it from next to the module that imports it',
    stage: 'file',
    dev: { pkg: '@jitl/quickjs-ng-wasmfile-release-sync', file: 'dist/emscripten-module.wasm' },
    // The emscripten glue resolves `new URL("emscripten-module.wasm", import.meta.url)`, and every
    // bundle sits in the backend root, so this one copy serves all of them.
    staged: 'emscripten-module.wasm',
    unpacked: true,
  },
  {
    id: 'esbuild',
    why: "the compiler's esbuild JS API (loaded by esbuild-runtime.ts: it spawns the platform binary below)",
    stage: 'dir',
    dev: { pkg: 'esbuild', file: '.' },
    // Not bin/: on this layout it is a second copy of the platform binary.
    files: ['package.json', 'lib/main.js'],
    // Not under node_modules: nothing resolves it by name; esbuild-runtime.ts loads it by this path.
    staged: 'vendor/esbuild',
    unpacked: true,
  },
  {
    id: 'esbuild-binary',
    why: "esbuild's platform binary, executed by the esbuild JS API",
    stage: 'dir',
    dev: { pkg: binary.pkg, file: '.' },
    files: ['package.json', binary.file],
    staged: `vendor/${binary.pkg}`,
    unpacked: true,
  },
  {
    id: 'npm',
    why: "the npm the installer runs (with the app's own runtime: a user's machine may have no Node.js or npm)",
    stage: 'dir',
    // Pinned exactly in package.json; which major and why: docs/packaging.md, "The app's own npm".
    dev: { pkg: 'npm', file: '.' },
    // npm's own dependencies are bundled inside it (node_modules/), resolved relative to npm-cli.js.
    exclude: ['docs', 'man'],
    staged: 'vendor/npm',
    // Executed by a child process (the runtime as Node), which cannot read inside the asar archive.
    unpacked: true,
  },
  {
    id: 'renderer',
    why: 'the renderer build the window and the web host serve',
    stage: 'dir',
    dev: { repo: 'out/renderer' },
    staged: 'renderer',
    unpacked: false,
  },
  {
    id: 'preload',
    why: "the window's preload bundle (CommonJS, requires only electron)",
    stage: 'file',
    dev: { repo: 'out/electron/preload.cjs' },
    staged: 'preload.cjs',
    unpacked: false,
  },
  {
    id: 'registry-index',
    why: 'the bundled registry index `search` reads',
    stage: 'file',
    dev: { repo: 'registry/index.json' },
    staged: 'registry/index.json',
    unpacked: false,
  },
  ...SHIPPED_PACKS.map((pack) => ({
    id: `pack:${pack.dir}`,
    why: `the shipped pack ${pack.name}, installed on first run`,
    stage: 'pack' as const,
    // Dev builds the same tarball on demand into out/ (electron/first-run/pack-tarball.ts).
    dev: { repo: `out/_sandbox/${pack.dir}/pack.tgz` },
    bundleEntry: `packs/${pack.dir}`,
    staged: `_sandbox/${pack.dir}/pack.tgz`,
    unpacked: true,
  })),
  {
    id: 'precompiled-cache',
    why: "the shipped packs' npm modules compiled at packaging time; first run copies them into the compile cache, which re-checks each against the installed files",
    stage: 'precompiled',
    // Built from the staged pack tarballs (so after them); dev builds it on demand into out/.
    dev: { repo: 'out/_sandbox/precompiled/cache.json' },
    bundleEntry: 'packs',
    staged: '_sandbox/precompiled-cache.json',
    unpacked: true,
  },
] as const satisfies readonly AssetSpec[];

export type AssetId = (typeof ASSETS)[number]['id'];

/** Thrown for an id that is not registered: a bug in the caller, never an expected failure. */
export class UnknownAssetError extends Error {
  override readonly name = 'UnknownAssetError';
}

// The one place the backend's own location is read. bundle-backend's coverage check accepts this
// exact name, so any other `import.meta.url` data load in the bundle fails the build.
const SANDBOX_PACKS_ASSET_BASE = import.meta.url;

/** The backend root: the repo in dev, the folder holding the bundles when staged. */
export function backendRoot(): string {
  const here = path.dirname(fileURLToPath(SANDBOX_PACKS_ASSET_BASE));
  return BUNDLED ? here : path.resolve(here, '..', '..');
}

export function assetSpec(id: AssetId): AssetSpec {
  const spec = (ASSETS as readonly AssetSpec[]).find((asset) => asset.id === id);
  if (!spec) throw new UnknownAssetError(`no asset is registered as "${id}"`);
  return spec;
}

/** Electron serves asar-packed files to fs, but not to other processes or worker entries. */
export function outsideAsar(file: string): string {
  return file.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
}

function devPath(spec: AssetSpec, root: string): string {
  if ('repo' in spec.dev) return path.join(root, spec.dev.repo);
  // Resolved from the repo root like Node would, without executing the package.
  return path.join(root, 'node_modules', spec.dev.pkg, spec.dev.file);
}

/** Absolute path of an asset in the layout we run in. */
export function assetPath(id: AssetId, root: string = backendRoot(), bundled: boolean = BUNDLED): string {
  const spec = assetSpec(id);
  if (!bundled) return devPath(spec, root);
  const staged = path.join(root, ...spec.staged.split('/'));
  return spec.unpacked ? outsideAsar(staged) : staged;
}

export function assetUrl(id: AssetId, root?: string, bundled?: boolean): URL {
  return pathToFileURL(assetPath(id, root, bundled));
}
