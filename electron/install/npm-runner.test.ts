// The installer's npm is the one the app ships, run by the app's runtime with a PATH that may
// hold no node and no npm (or a different npm), and trusted scripts' `node` is that same runtime.
// A runtime or npm that cannot be started answers a tagged failure with the exact sentence.

import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmCliPath, npmVersion, runtimeVersions } from '../platform/app-runtime.ts';
import { cmdShim, createNodeShim, posixShim, withFirstOnPath } from './node-shim.ts';
import { NPM_LAUNCH_MESSAGES, npmErrorSummary, runNpm } from './npm-runner.ts';
import { npmFailure } from './root-ops.ts';

const PINNED_NPM = (
  JSON.parse(await readFile(path.resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
).dependencies.npm;

let temp: string;
/** A PATH entry whose `npm` and `node` both fail: anything found on PATH makes the run fail. */
let impostors: string;
/** PATH for scripts: the impostors, then only `sh` (npm starts scripts with `sh` from PATH on POSIX). */
let scriptPath: string;

beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'sp-npm-runner-'));
  impostors = path.join(temp, 'impostors');
  await mkdir(impostors);
  for (const name of ['npm', 'node']) {
    await writeFile(path.join(impostors, name), `#!/bin/sh\necho "impostor ${name}" >&2\nexit 1\n`, { mode: 0o755 });
  }
  const tools = path.join(temp, 'tools');
  await mkdir(tools);
  await symlink('/bin/sh', path.join(tools, 'sh'));
  scriptPath = `${impostors}${path.delimiter}${tools}`;
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('the npm the installer runs', () => {
  it('is the pinned npm from the lockfile, run by our runtime even when PATH offers another npm', async () => {
    expect(PINNED_NPM).toMatch(/^11\.\d+\.\d+$/);
    expect(npmVersion()).toBe(PINNED_NPM);
    const run = await runNpm(['--version'], { cwd: temp, env: { PATH: impostors } });
    expect(run.failure).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(PINNED_NPM);
  });

  it('gives trusted scripts a `node` that is our runtime, with no node on PATH', async () => {
    const project = path.join(temp, 'project');
    await mkdir(project);
    const script = 'node -e "console.log(JSON.stringify({ execPath: process.execPath, node: process.versions.node }))"';
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'shim-check', version: '1.0.0', scripts: { show: script } }));
    const run = await runNpm(['run', '--silent', 'show', '--userconfig', path.join(temp, 'none.npmrc')], { cwd: project, env: { PATH: scriptPath } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ execPath: process.execPath, node: process.versions.node });
  });

  it("puts the shim before the caller's PATH for scripts, and removes it when npm exits", async () => {
    const project = path.join(temp, 'project-path');
    await mkdir(project);
    // npm itself puts node_modules/.bin folders first; the shim must come before everything we were given.
    const script =
      "node -e \"const p = require('path'); const dirs = process.env.PATH.split(p.delimiter); const i = dirs.findIndex((d) => p.basename(d).startsWith('sandbox-packs-node-')); console.log(JSON.stringify([dirs[i], i < dirs.indexOf(process.argv[1]), require('fs').readdirSync(dirs[i]).sort()]))\"";
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'shim-path', version: '1.0.0', scripts: { show: `${script} ${impostors}` } }));
    const run = await runNpm(['run', '--silent', 'show', '--userconfig', path.join(temp, 'none.npmrc')], { cwd: project, env: { PATH: scriptPath } });
    expect(run.stderr).toBe('');
    const [dir, beforeCallers, files] = JSON.parse(run.stdout) as [string, boolean, string[]];
    expect(beforeCallers).toBe(true);
    expect(files).toEqual(['node', 'node.cmd']);
    await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reports what it runs with for --version and diagnostics', () => {
    const versions = runtimeVersions();
    expect(versions).toEqual({
      app: '0.1.0',
      npm: PINNED_NPM,
      node: process.versions.node,
      electron: undefined,
      npmPath: npmCliPath(),
      runtimePath: process.execPath,
    });
  });
});

describe('npm that cannot be started', () => {
  it('answers npm-unavailable with what to do when the shipped npm is missing', async () => {
    const cli = path.join(temp, 'gone', 'bin', 'npm-cli.js');
    const run = await runNpm(['--version'], { cwd: temp, npmCli: cli });
    expect(run.failure).toEqual({
      ok: false,
      code: 'npm-unavailable',
      message: `The npm that ships with Sandbox Packs is missing (${cli}); reinstall Sandbox Packs (in a development checkout, run \`npm install\`).`,
    });
    expect(npmFailure(run, 'installing x')).toBe(run.failure);
    expect(npmErrorSummary(run)).toBe(run.failure?.message);
  });

  it('answers npm-unavailable when the runtime is missing', async () => {
    const runtime = path.join(temp, 'no-such-runtime');
    const run = await runNpm(['--version'], { cwd: temp, runtime: { execPath: runtime, env: {} } });
    expect(run.failure).toEqual({
      ok: false,
      code: 'npm-unavailable',
      message: `The runtime Sandbox Packs runs npm with is missing (${runtime}); reinstall Sandbox Packs.`,
    });
    expect(run.failure?.message).toBe(NPM_LAUNCH_MESSAGES.runtimeMissing(runtime));
  });

  it('answers npm-unavailable when the system refuses to start the runtime', async () => {
    const runtime = path.join(temp, 'not-executable');
    await writeFile(runtime, 'not a program');
    await chmod(runtime, 0o644);
    const run = await runNpm(['--version'], { cwd: temp, runtime: { execPath: runtime, env: {} } });
    expect(run.failure).toEqual({
      ok: false,
      code: 'npm-unavailable',
      message: `The system refused to start ${runtime} to run npm (EACCES); check that security software lets Sandbox Packs start programs, or reinstall it.`,
    });
  });

  it('maps an unreachable registry to registry-unreachable with what to do', async () => {
    const run = await runNpm(
      [
        'view',
        'left-pad',
        'version',
        '--registry',
        'http://127.0.0.1:9/',
        '--fetch-retries=0',
        '--userconfig',
        path.join(temp, 'none.npmrc'),
        '--cache',
        path.join(temp, 'cache'),
      ],
      { cwd: temp },
    );
    const failure = npmFailure(run, 'installing left-pad');
    expect(failure.code).toBe('registry-unreachable');
    expect(failure.message).toMatch(
      /^The package registry could not be reached while installing left-pad; check the network connection and the registry address, then try again\. npm said: .*ECONNREFUSED/,
    );
  });
});

describe('node shim', () => {
  const run = promisify(execFile);

  it("runs `node -e` with the runtime it was made for, and the runtime's environment", async () => {
    const shim = await createNodeShim({ execPath: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } });
    try {
      const { stdout } = await run(
        path.join(shim.dir, 'node'),
        ['-e', 'console.log(JSON.stringify([process.execPath, process.env.ELECTRON_RUN_AS_NODE, process.argv.slice(1)]))', 'a b', "it's"],
        { env: { PATH: impostors } },
      );
      expect(JSON.parse(stdout)).toEqual([process.execPath, '1', ['a b', "it's"]]);
    } finally {
      await shim.dispose();
    }
  });

  it('quotes a runtime path with spaces and quotes, and writes node.cmd for Windows', () => {
    expect(posixShim({ execPath: "/Apps/Sandbox Packs/it's", env: { ELECTRON_RUN_AS_NODE: '1' } })).toBe(
      "#!/bin/sh\n# Written by Sandbox Packs for one npm run: the app's own runtime, as Node.\nELECTRON_RUN_AS_NODE='1'\nexport ELECTRON_RUN_AS_NODE\nexec '/Apps/Sandbox Packs/it'\\''s' \"$@\"\n",
    );
    expect(cmdShim({ execPath: 'C:\\Program Files\\Sandbox Packs\\100%\\Sandbox Packs.exe', env: { ELECTRON_RUN_AS_NODE: '1' } })).toBe(
      '@ECHO OFF\r\nREM Written by Sandbox Packs for one npm run: the app\'s own runtime, as Node.\r\nSETLOCAL\r\nSET "ELECTRON_RUN_AS_NODE=1"\r\n"C:\\Program Files\\Sandbox Packs\\100%%\\Sandbox Packs.exe" %*\r\nEXIT /B %ERRORLEVEL%\r\n',
    );
  });

  it('goes first on PATH under the key the environment already uses', () => {
    expect(withFirstOnPath({ Path: 'C:\\Windows', X: '1' }, 'D:\\shim')).toEqual({ Path: `D:\\shim${path.delimiter}C:\\Windows`, X: '1' });
    expect(withFirstOnPath({}, '/shim')).toEqual({ PATH: '/shim' });
    expect(withFirstOnPath({ Path: 'C:\\Windows', PATH: 'D:\\mine' }, 'E:\\shim')).toEqual({ PATH: `E:\\shim${path.delimiter}D:\\mine` });
  });
});
