#!/usr/bin/env node
// Proves the staged backend (scripts/bundle-backend.mjs) works on its own, the way the packaged app
// will run it. Two parts, every failure collected, exit 1 on any:
//
// 1. Digests: every asset the registry (electron/platform/assets.ts) lists is in the staged
//    asset-manifest.json, and every staged file is present with the recorded sha256.
// 2. A headless run from a temp copy OUTSIDE the repository: the copy has no node_modules or
//    package.json above it, no symlinks, and no file that names the repository's path; and the
//    staged CLI runs on a copy of the runtime, in a mount namespace of its own where the repository
//    (and the runtime it was copied from) are hidden under empty, read-only mounts — so a file
//    loaded from the repo or its node_modules, by the app or by the npm it starts, fails the run
//    instead of silently working (see `confinement`). In that copy: the first run seeds a fresh data
//    directory offline (the registry it is given is unreachable), discovery sees every shipped
//    pack ready, the example workflow validates, and a Code node importing the YAML bridge pack
//    and the geo WASM entry returns the expected value with a WASM call in its receipt. Then the
//    staged `serve` serves the staged renderer and runs the saved example over the HTTP contract.
// 3. Like a user's machine without Node.js or npm: every staged run above gets a PATH with no
//    `node` and no `npm` (only `sh`, which npm starts scripts with on POSIX), and the runtime by
//    absolute path. On top of the first run: a registry install from a local Verdaccio and trust
//    + rebuild of a pack whose install script runs `node -e …` (it must get our runtime, through
//    the node shim). The install and trust are repeated on a fresh data directory with a PATH
//    whose `npm` and `node` exit 1, which proves the app's own npm and runtime are the ones used.
//    Last, `--version` names them, and with the staged npm deleted an install answers the tagged
//    npm-unavailable sentence, not a stack trace.
//
// Usage: node scripts/verify-backend-bundle.mjs [--bundle DIR] [--keep]

import { createHash } from 'node:crypto';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { copyFile, cp, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { z } from 'zod';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Nothing listens here: a first run that tried the network would fail. */
const UNREACHABLE_REGISTRY = 'http://127.0.0.1:9/';
const STEP_TIMEOUT_MS = 120_000;
/** The staged npm keeps its own bundled dependencies in node_modules/, resolved relative to npm-cli.js. */
const NPM_STAGED = 'vendor/npm';
/** The pack whose install script needs `node`: published to the local registry, trusted, rebuilt. */
const SCRIPT_PACK = '@sp-fixture/node-script-pack';

const ManifestSchema = z
  .object({
    format: z.literal(1),
    builtAt: z.string(),
    platform: z.string(),
    entries: z.array(z.object({ file: z.string(), why: z.string(), sha256: z.string() }).strict()),
    assets: z.array(
      z
        .object({
          id: z.string(),
          staged: z.string(),
          unpacked: z.boolean(),
          files: z.array(z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().nonnegative() }).strict()).min(1),
        })
        .strict(),
    ),
  })
  .strict();

function parseArgs(argv) {
  const args = { bundle: path.join(ROOT, 'dist', 'backend'), keep: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--bundle') args.bundle = path.resolve(argv[++i] ?? '');
    else if (argv[i] === '--keep') args.keep = true;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return args;
}

async function sha256(file) {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

async function walk(dir, base = dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    out.push({ rel: path.relative(base, full), full, entry });
    if (entry.isDirectory()) out.push(...(await walk(full, base)));
  }
  return out;
}

async function exists(file) {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** Part 1: the manifest covers the registry, and every staged file has its recorded digest. */
async function checkDigests(bundle, assets, failures) {
  let manifest;
  try {
    manifest = ManifestSchema.parse(JSON.parse(await readFile(path.join(bundle, 'asset-manifest.json'), 'utf8')));
  } catch (error) {
    failures.push(`asset-manifest.json is missing or malformed in ${bundle}: ${error.message.split('\n')[0]} (run scripts/bundle-backend.mjs)`);
    return undefined;
  }
  const staged = new Map(manifest.assets.map((a) => [a.id, a]));
  for (const asset of assets) {
    const record = staged.get(asset.id);
    if (!record) failures.push(`asset "${asset.id}" (${asset.why}) is registered but was not staged`);
    else if (record.staged !== asset.staged) failures.push(`asset "${asset.id}" is staged at ${record.staged}, the registry says ${asset.staged}`);
  }
  for (const id of staged.keys()) if (!assets.some((a) => a.id === id)) failures.push(`asset-manifest.json lists "${id}", which the registry no longer has`);
  let files = 0;
  const check = async (rel, expected) => {
    files++;
    const file = path.join(bundle, ...rel.split('/'));
    if (!(await exists(file))) failures.push(`${rel} is missing from the staged bundle`);
    else if ((await sha256(file)) !== expected) failures.push(`${rel} does not have the sha256 recorded at bundle time`);
  };
  for (const entry of manifest.entries) await check(entry.file, entry.sha256);
  for (const record of manifest.assets) for (const file of record.files) await check(file.path, file.sha256);
  return { manifest, files };
}

/** Part 2a: the copy cannot reach the repository. */
async function checkIsolation(copy, failures) {
  for (let dir = path.dirname(copy); ; dir = path.dirname(dir)) {
    for (const name of ['node_modules', 'package.json']) {
      if (await exists(path.join(dir, name))) failures.push(`${path.join(dir, name)} exists above the temp copy; Node could resolve from it`);
    }
    if (path.dirname(dir) === dir) break;
  }
  const needle = Buffer.from(ROOT);
  for (const { rel, full, entry } of await walk(copy)) {
    if (entry.isSymbolicLink()) failures.push(`${rel} is a symbolic link in the staged bundle`);
    else if (entry.isDirectory() && entry.name === 'node_modules' && !rel.split(path.sep).join('/').startsWith(`${NPM_STAGED}/`))
      failures.push(`${rel} is a node_modules folder: the staged bundle loads its dependencies by registered path only`);
    else if (entry.isFile() && (await stat(full)).size < 8 * 1024 * 1024 && (await readFile(full)).includes(needle)) {
      failures.push(`${rel} names the repository path ${ROOT}`);
    }
  }
}

/**
 * How every staged run starts: the runtime copied into the temp folder (the packaged app carries
 * its own), inside a private mount namespace (`unshare -m`; with `-r` when not root) in which the
 * repository and the runtime's original file are covered by empty read-only mounts before the
 * runtime starts. It holds for the whole process tree — npm and install scripts included — and on
 * every runtime. Node's permission model, used before, cannot host the app on Node 24: there it
 * disables `fsync` outright (the ledger's durable writes) and lets a child npm make no symlink
 * (bin links) without full read and write permission. Linux only, which is where CI runs.
 */
async function confinement(temp) {
  const runtime = path.join(temp, 'runtime', 'node');
  if (!path.relative(ROOT, temp).startsWith('..')) throw new Error(`the temp folder ${temp} is inside the repository, which the staged runs cannot see`);
  await mkdir(path.dirname(runtime));
  await copyFile(process.execPath, runtime);
  await import('node:fs/promises').then((fs) => fs.chmod(runtime, 0o755));
  const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const mount = quote(await onPath('mount'));
  const hide = [
    `${mount} -t tmpfs -o ro,size=4k sp-hidden ${quote(ROOT)}`,
    // The original runtime (also the system's `node`, when that is what runs this script).
    `${mount} --bind -o ro /dev/null ${quote(await realpath(process.execPath))}`,
  ].join(' && ');
  const unshare = ['--mount', '--propagation', 'private', ...(process.getuid?.() === 0 ? [] : ['--map-root-user'])];
  const unshareFile = await onPath('unshare');
  const wrap = (args) => [unshareFile, [...unshare, '--', '/bin/sh', '-c', `${hide} && exec "$0" "$@"`, runtime, ...args]];
  // The confinement is proven, not assumed: inside it the repository's package.json is not there.
  const probe = "process.stdout.write(String(require('fs').existsSync(process.argv[1])))";
  const [file, args] = wrap(['-e', probe, path.join(ROOT, 'package.json')]);
  let seen;
  try {
    seen = execFileSync(file, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
  } catch (error) {
    throw new Error(`the staged runs need a private mount namespace (util-linux unshare, Linux): ${error.message.split('\n')[0]}`);
  }
  if (seen !== 'false') throw new Error(`inside the confinement the repository is still visible (${seen})`);
  return { runtime, wrap };
}

/** A command's absolute path on this script's PATH (the staged runs' own PATH has only `sh`). */
async function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/bin', '/bin', '/usr/sbin', '/sbin'])) {
    if (dir && (await exists(path.join(dir, name)))) return path.join(dir, name);
  }
  throw new Error(`the staged runs need \`${name}\` (util-linux), which is not on PATH`);
}

/** Set by main() once the confinement is made: every staged run goes through it. */
let confined;

function run(args, options) {
  return new Promise((resolve) => {
    const [file, wrapped] = confined.wrap(args);
    execFile(file, wrapped, { ...options, timeout: STEP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, error });
    });
  });
}

/**
 * The web face of the staged bundle (what `npm run web` shows): the staged renderer is served, and
 * the saved example workflow loads and runs over the HTTP contract with the launch's token.
 */
async function checkServe(argv, options, data, failures) {
  const [file, wrapped] = confined.wrap([...argv, 'serve', '--root', data, '--port', '0']);
  const child = spawn(file, wrapped, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise((resolve) => {
      let out = '';
      const timer = setTimeout(() => resolve(undefined), STEP_TIMEOUT_MS);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /Open (http:\/\/127\.0\.0\.1:\d+)\/#token=([\w-]+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve({ origin: match[1], token: match[2] });
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    if (!url) {
      failures.push(`serve: no address printed. stderr: ${stderr.trim().split('\n').slice(-4).join(' | ')}`);
      return;
    }
    const page = await fetch(`${url.origin}/`);
    const html = await page.text();
    const script = /<script type="module"[^>]*src="\.?\/?([^"]+)"/.exec(html);
    if (page.status !== 200 || !script) failures.push(`serve: GET / answered ${page.status} without the renderer's module script`);
    else {
      const asset = await fetch(`${url.origin}/${script[1]}`);
      if (asset.status !== 200) failures.push(`serve: the renderer script ${script[1]} answered ${asset.status}`);
    }
    const rpc = async (method, body) => {
      const response = await fetch(`${url.origin}/api/rpc/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${url.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return response.json();
    };
    const { EXAMPLE_WORKFLOW } = await import('../electron/first-run/first-run.ts');
    const loaded = await rpc('workflows.load', { name: EXAMPLE_WORKFLOW });
    const node = loaded?.ok ? loaded.value.workflow.nodes[0] : undefined;
    if (!node) failures.push(`serve: workflows.load answered ${JSON.stringify(loaded).slice(0, 300)}`);
    else {
      const ran = await rpc('code.run', { code: node.code, packages: node.packages });
      if (!(ran?.ok && ran.value.result.ok && ran.value.result.value === 'Berlin → Paris: 877 km'))
        failures.push(`serve: code.run of the example answered ${JSON.stringify(ran).slice(0, 300)}`);
    }
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

/** PATH for the staged runs: only `sh` (npm starts lifecycle scripts with it on POSIX); no node, no npm. */
async function minimalPathDir(temp) {
  const dir = path.join(temp, 'path-sh-only');
  await mkdir(dir);
  await symlink(await realpath('/bin/sh'), path.join(dir, 'sh'));
  return dir;
}

/** A PATH entry whose `npm` and `node` exit 1: a run that used either would fail. */
async function impostorPathDir(temp) {
  const dir = path.join(temp, 'path-impostors');
  await mkdir(dir);
  for (const name of ['npm', 'node']) {
    await writeFile(path.join(dir, name), `#!/bin/sh\necho "the ${name} on PATH was used" >&2\nexit 1\n`, { mode: 0o755 });
  }
  return dir;
}

/** A register pack whose install script runs `node -e …` and records which runtime ran it. */
async function writeScriptPack(dir) {
  await mkdir(dir, { recursive: true });
  const record = "require('fs').writeFileSync('ran-with.json', JSON.stringify({ execPath: process.execPath }))";
  await writeFile(
    path.join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: SCRIPT_PACK,
        version: '1.0.0',
        description: 'verify-backend-bundle: an install script that needs node',
        license: 'MIT',
        main: 'register.js',
        scripts: { install: `node -e "${record}"` },
        nodetool: { apiVersion: 1, register: 'register.js' },
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(path.join(dir, 'register.js'), 'module.exports = function register() { return "registered"; };\n');
}

/**
 * A registry install, then trust and rebuild of the script pack: each script run must have found
 * `node` on a PATH that has none, and it must have been the runtime the staged CLI runs on.
 */
async function installTrustRebuild(label, staged, data, registryUrl, failures) {
  const ranWith = path.join(data, 'node_modules', ...SCRIPT_PACK.split('/'), 'ran-with.json');
  const installed = jsonOf(`${label}: install`, await staged(['install', SCRIPT_PACK, '--root', data, '--registry', registryUrl, '--json']), failures);
  if (!installed) return;
  if (installed.ok === false) {
    failures.push(`${label}: install answered ${installed.code}: ${installed.message}`);
    return;
  }
  if (await exists(ranWith)) failures.push(`${label}: the install script ran at install time, before trust`);
  for (const step of ['trust', 'rebuild']) {
    await rm(ranWith, { force: true });
    const result = await staged([step, SCRIPT_PACK, '--root', data, '--json']);
    const answer = jsonOf(`${label}: ${step}`, result, failures);
    if (!answer) return;
    if (answer.ok === false || result.code !== 0) {
      failures.push(`${label}: ${step} answered ${answer.code}: ${answer.message}`);
      return;
    }
    try {
      const recorded = JSON.parse(await readFile(ranWith, 'utf8'));
      if (recorded.execPath !== confined.runtime)
        failures.push(`${label}: ${step}: the install script's node was ${recorded.execPath}, expected the app's runtime ${confined.runtime}`);
    } catch {
      failures.push(`${label}: ${step}: the install script did not run (no ${path.relative(data, ranWith)})`);
    }
  }
}

/**
 * `--version` names the staged npm and this runtime; then, with the staged npm deleted, an install
 * answers the tagged npm-unavailable sentence (JSON and text) and no stack trace. Runs last: it
 * damages the copy.
 */
async function checkVersionAndMissingNpm(staged, copy, data, registryUrl, failures) {
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  const cliJs = path.join(copy, ...NPM_STAGED.split('/'), 'bin', 'npm-cli.js');
  const version = jsonOf('--version', await staged(['--version', '--json']), failures);
  const expected = { app: pkg.version, npm: pkg.dependencies.npm, node: process.versions.node, npmPath: cliJs, runtimePath: confined.runtime };
  if (version && JSON.stringify(version) !== JSON.stringify(expected))
    failures.push(`--version --json answered ${JSON.stringify(version)}, expected ${JSON.stringify(expected)}`);

  await rm(cliJs);
  const message = `The npm that ships with Sandbox Packs is missing (${cliJs}); reinstall Sandbox Packs (in a development checkout, run \`npm install\`).`;
  const asJson = await staged(['install', 'left-pad', '--root', data, '--registry', registryUrl, '--json']);
  const answer = jsonOf('install without npm', asJson, failures);
  if (answer && JSON.stringify(answer) !== JSON.stringify({ ok: false, code: 'npm-unavailable', message }))
    failures.push(`install without npm answered ${JSON.stringify(answer)}`);
  const asText = await staged(['install', 'left-pad', '--root', data, '--registry', registryUrl]);
  if (asText.code !== 1 || !asText.stderr.includes(`npm-unavailable: ${message}\n`) || /^\s+at /m.test(asText.stderr)) {
    failures.push(`install without npm: exit ${asText.code}, stderr ${JSON.stringify(asText.stderr.slice(-400))}`);
  }
}

function jsonOf(step, result, failures) {
  try {
    return JSON.parse(result.stdout);
  } catch {
    failures.push(`${step}: exit ${result.code}, no JSON on stdout. stderr: ${result.stderr.trim().split('\n').slice(-4).join(' | ')}`);
    return undefined;
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  register();
  const { ASSETS, SHIPPED_PACKS } = await import('../electron/platform/assets.ts');
  const { EXAMPLE_CODE, EXAMPLE_WORKFLOW } = await import('../electron/first-run/first-run.ts');
  const failures = [];
  const started = performance.now();
  const timings = [];
  const timed = async (name, fn) => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      timings.push(`${name} ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
  };

  const digests = await timed('digests', () => checkDigests(args.bundle, ASSETS, failures));
  if (!digests) return finish(failures, timings, started);

  const temp = await mkdtemp(path.join(os.tmpdir(), 'sp-verify-'));
  try {
    const copy = path.join(temp, 'backend');
    const data = path.join(temp, 'data');
    const inputs = path.join(temp, 'inputs');
    await cp(args.bundle, copy, { recursive: true, verbatimSymlinks: true });
    await checkIsolation(copy, failures);
    await mkdir(inputs);
    const codeFile = path.join(inputs, 'example.js');
    await writeFile(codeFile, EXAMPLE_CODE);

    // A clean environment: nothing that points Node or npm back at the repository, and a PATH
    // with no node and no npm (a user's machine without Node.js); the runtime goes by absolute path.
    const tmp = path.join(temp, 'tmp');
    await mkdir(tmp);
    const shOnly = await minimalPathDir(temp);
    const env = { PATH: shOnly, HOME: process.env.HOME ?? temp, TMPDIR: tmp, LANG: 'C.UTF-8' };
    const impostorEnv = { ...env, PATH: `${await impostorPathDir(temp)}${path.delimiter}${shOnly}` };
    const cli = path.join(copy, 'cli.mjs');
    const data2 = path.join(temp, 'second-root');
    confined = await confinement(temp);
    const flags = ['--no-warnings'];
    const staged = (argv, stepEnv = env) => run([...flags, cli, ...argv], { cwd: inputs, env: stepEnv });

    // The data directory exists before the first run, as the app's own does.
    await mkdir(data);
    const seeded = await timed('first-run', () => staged(['first-run', '--root', data, '--registry', UNREACHABLE_REGISTRY, '--json']));
    const report = jsonOf('first-run', seeded, failures);
    if (report) {
      const expected = SHIPPED_PACKS.map((p) => p.name).sort();
      if (report.state !== 'done') failures.push(`first-run: state ${report.state}, expected done`);
      if (JSON.stringify([...(report.installed ?? [])].sort()) !== JSON.stringify(expected))
        failures.push(`first-run installed ${JSON.stringify(report.installed)}, expected ${JSON.stringify(expected)}`);
      if (report.workflow !== EXAMPLE_WORKFLOW)
        failures.push(`first-run saved workflow ${JSON.stringify(report.workflow)}, expected ${JSON.stringify(EXAMPLE_WORKFLOW)}`);
    }
    const again = jsonOf('first-run (again)', await timed('first-run again', () => staged(['first-run', '--root', data, '--json'])), failures);
    if (again && again.state !== 'already-done') failures.push(`a second first-run answered ${again.state}, expected already-done`);

    const discovered = jsonOf('discover', await timed('discover', () => staged(['discover', '--root', data, '--json'])), failures);
    if (discovered) {
      for (const pack of SHIPPED_PACKS) {
        const found = discovered.packs?.find((p) => p.name === pack.name);
        if (!found) failures.push(`discover: shipped pack ${pack.name} was not discovered`);
        else
          for (const m of found.modules ?? [])
            if (m.status !== 'ready') failures.push(`discover: ${m.specifier} is ${m.status}${m.reason ? ` (${m.reason})` : ''}`);
      }
    }

    const workflowFile = path.join(data, 'workflows', `${EXAMPLE_WORKFLOW}.json`);
    const validated = await timed('validate', () => staged(['validate', workflowFile, '--root', data, '--json']));
    const validation = jsonOf('validate', validated, failures);
    if (validation && (validation.ok !== true || validated.code !== 0))
      failures.push(`validate: the example workflow has issues: ${JSON.stringify(validation.issues)}`);

    const ran = await timed('run', () =>
      staged(['run', codeFile, '--root', data, '--package', '@nodetool-ai/sandbox-yaml', '--package', '@nodetool-ai/sandbox-geo/simplify-wasm', '--json']),
    );
    const result = jsonOf('run', ran, failures);
    if (result) {
      if (result.ok !== true) failures.push(`run: ${result.code}: ${result.message}`);
      else if (result.value !== 'Berlin → Paris: 877 km') failures.push(`run returned ${JSON.stringify(result.value)}, expected "Berlin → Paris: 877 km"`);
      const wasmCalls = (result.receipt?.calls ?? []).filter((c) => c.kind === 'wasm' && c.ok);
      if (result.ok && wasmCalls.length !== 1)
        failures.push(`run: expected one successful WASM call in the receipt, got ${JSON.stringify(result.receipt?.calls)}`);
    }

    await timed('serve', () => checkServe([...flags, cli], { cwd: inputs, env }, data, failures));

    const packDir = path.join(temp, 'script-pack');
    await writeScriptPack(packDir);
    const { startRegistry } = await import('../electron/testing/verdaccio.ts');
    const registry = await timed('registry', async () => {
      const started = await startRegistry({ uplink: false });
      await started.publish(packDir);
      return started;
    });
    try {
      await timed('install+trust+rebuild', () => installTrustRebuild('no node/npm on PATH', staged, data, registry.url, failures));
      await mkdir(data2);
      await timed('same, impostor npm/node on PATH', () =>
        installTrustRebuild('impostor npm and node on PATH', (argv) => staged(argv, impostorEnv), data2, registry.url, failures),
      );
      await timed('version, missing npm', () => checkVersionAndMissingNpm(staged, copy, data2, registry.url, failures));
    } finally {
      await registry.stop();
    }
  } finally {
    if (args.keep) console.log(`kept ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
  return finish(failures, timings, started, digests.files);
}

function finish(failures, timings, started, files = 0) {
  const total = ((performance.now() - started) / 1000).toFixed(1);
  if (failures.length) {
    console.error(`verify-backend-bundle: ${failures.length} failure(s) (${total} s; ${timings.join(', ')}):`);
    for (const failure of failures) console.error(`  - ${failure}`);
    process.exitCode = 1;
  } else {
    console.log(
      `verify-backend-bundle: ok — ${files} staged files match their digests; the copy outside the repo seeded, discovered, validated, ran, installed from a registry and ran a trusted script's node, with no node or npm on PATH (${total} s; ${timings.join(', ')})`,
    );
  }
}

await main();
