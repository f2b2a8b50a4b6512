// `sandbox-packs run` as a real process against a real install root (fixtures/discovery/good:
// @acme/geo with an internal helper and a WASM module), so catalog, pool, dispatcher and exit
// codes are all the real thing.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePackageOption } from './run.ts';
import { fixtureDataDir } from '../../testing/test-support.ts';
import { createFileSecretStore } from '../../services/secret-store.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ROOT = ['--root', 'fixtures/discovery/good'];
const code = (name: string) => `fixtures/kernel/code/${name}`;

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, ['scripts/sandbox-packs.mjs', 'run', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 90_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('sandbox-packs run', () => {
  it('runs declared JS and WASM modules and prints the ok shape with a receipt', () => {
    const run = cli([
      code('geo-wasm.js'),
      ...ROOT,
      '--package',
      '@acme/geo@1.2.0',
      '--package',
      '@acme/geo/simplify-wasm',
      '--input',
      'input={"n":7}',
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out)).toEqual(['ok', 'value', 'logs', 'receipt']);
    expect(out).toMatchObject({ ok: true, value: { km: 111, sum: 5, scaled: 3, n: 7 }, logs: [{ level: 'log', text: 'computing' }] });
    expect(out.receipt.modules.map((m: { displayName: string }) => m.displayName)).toEqual([
      '@acme/geo',
      '@acme/geo internal sandbox/util.js',
      '@acme/geo/simplify-wasm',
    ]);
    expect(out.receipt.calls).toEqual([
      { kind: 'wasm', name: '@acme/geo/simplify-wasm#add', ok: true },
      { kind: 'wasm', name: '@acme/geo/simplify-wasm#scale', ok: true },
    ]);
  });

  it('denies an undeclared import with the failure shape and exit 1', () => {
    const run = cli([code('node-builtin.js'), ...ROOT, '--package', '@acme/geo', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'import-denied',
      message:
        'Import "node:fs" from the node\'s code was denied: the node\'s code may import only the modules in its packages declaration. Node builtins do not exist in the sandbox. This node\'s packages declaration is ["@acme/geo"].',
      logs: [],
    });
  });

  it('fails an unknown declared specifier before running', () => {
    const run = cli([code('secret.js'), ...ROOT, '--package', '@acme/nope', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'unknown-specifier', logs: [] });
  });

  it('takes a granted secret from the environment variable of that name', () => {
    expect(JSON.parse(cli([code('secret.js'), ...ROOT, '--secret', 'SP_TEST_TOKEN', '--json'], { SP_TEST_TOKEN: 'abc' }).stdout)).toMatchObject({
      ok: true,
      value: 'abc',
    });
    const denied = cli([code('secret.js'), ...ROOT, '--json'], { SP_TEST_TOKEN: 'abc' });
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      ok: false,
      code: 'capability-denied',
      message: 'getSecret("SP_TEST_TOKEN") called by the node\'s code was denied: this node was not granted that secret.',
    });
  });

  it('grants a workspace directory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-cli-ws-'));
    try {
      const run = cli([code('workspace.js'), ...ROOT, '--workspace', dir, '--json']);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, value: [{ name: 'out.txt', kind: 'file' }] });
      expect(await readFile(path.join(dir, 'out.txt'), 'utf8')).toBe('written by the sandbox');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses loopback for an allowed host (no private network from the CLI)', () => {
    const run = cli([code('fetch-loopback.js'), ...ROOT, '--allow-fetch', 'localhost', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, code: 'capability-denied' });
  });

  it('stops at --timeout', () => {
    const run = cli([code('loop.js'), ...ROOT, '--timeout', '200', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      code: 'timeout',
      message: 'The code ran longer than its 200 ms time limit and was stopped.',
      logs: [],
    });
  });

  it('CodeAct mounts only session-allowed imports', () => {
    const allowed = cli([
      code('geo-wasm.js'),
      ...ROOT,
      '--codeact',
      '--session-allow',
      '@acme/geo',
      '--session-allow',
      '@acme/geo/simplify-wasm',
      '--input',
      'input={"n":1}',
      '--json',
    ]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ ok: true, value: { sum: 5 } });
    const partial = cli([code('geo-wasm.js'), ...ROOT, '--codeact', '--session-allow', '@acme/geo', '--json']);
    expect(partial.code).toBe(1);
    expect(JSON.parse(partial.stdout)).toEqual({
      ok: false,
      code: 'session-not-allowed',
      message:
        'The step imports "@acme/geo/simplify-wasm", which is not on this session\'s package allowlist ("@acme/geo"). Ask the user to allow the package for this session.',
      logs: [],
    });
    // No ledger in this root: nothing is trusted, so the default session allows nothing.
    const byDefault = cli([code('geo-wasm.js'), ...ROOT, '--codeact', '--json']);
    expect(JSON.parse(byDefault.stdout)).toMatchObject({ ok: false, code: 'session-not-allowed', message: expect.stringContaining('allowlist (empty)') });
  });

  it('exits 2 on bad usage', () => {
    expect(cli([...ROOT]).code).toBe(2);
    expect(cli([code('loop.js'), ...ROOT, '--input', 'x=not json']).code).toBe(2);
    expect(cli([code('loop.js'), ...ROOT, '--timeout', '0']).code).toBe(2);
    expect(cli([code('nope.js'), ...ROOT]).code).toBe(2);
    expect(cli([code('loop.js'), ...ROOT, '--codeact', '--package', '@acme/geo']).code).toBe(2);
  });
});

describe('parsePackageOption', () => {
  it('splits specifier, version and digest', () => {
    const digest = 'a'.repeat(64);
    expect(parsePackageOption(`@acme/geo/extra@1.2.0#${digest}`)).toEqual({
      specifier: '@acme/geo/extra',
      resolvedPackVersion: '1.2.0',
      contentDigest: digest,
    });
    expect(parsePackageOption('@acme/geo')).toEqual({ specifier: '@acme/geo' });
    expect(parsePackageOption('left-pad@2.0.0')).toEqual({ specifier: 'left-pad', resolvedPackVersion: '2.0.0' });
    expect(() => parsePackageOption('@acme/geo#nothex')).toThrow(
      '--package "@acme/geo#nothex": contentDigest: a digest is 64 lower-case hex characters (sha256)',
    );
  });
});

describe('sandbox-packs run WORKFLOW.json', () => {
  /** A data dir with @acme/geo and a saved workflow "Secrets demo" of three nodes; the store holds API_TOKEN. */
  async function savedWorkflow() {
    const data = await fixtureDataDir(path.join(repo, 'fixtures/discovery/good/node_modules/@acme/geo'));
    const nodes = [
      { id: 'plain', type: 'code', code: 'return 1 + 1;', packages: [] },
      {
        id: 'token',
        type: 'code',
        code: 'const t = await getSecret("API_TOKEN"); return { length: t.length, env: t === "from-env" };',
        packages: [],
        grants: { secrets: ['API_TOKEN'] },
      },
      {
        id: 'files',
        type: 'code',
        code: 'import { haversine } from "@acme/geo"; await workspace.writeText("out.txt", String(Math.round(haversine({ lat: 0, lon: 0 }, { lat: 0, lon: 1 })))); return await workspace.list();',
        packages: [{ specifier: '@acme/geo' }],
        grants: { workspace: true },
      },
    ];
    await mkdir(path.join(data.path, 'workflows'));
    const file = path.join(data.path, 'workflows', 'Secrets demo.json');
    await writeFile(file, JSON.stringify({ nodes }, null, 2));
    const stored = await createFileSecretStore(data.path).set('API_TOKEN', 'twelve-chars');
    if (!stored.ok) throw new Error(stored.message);
    return { data, file, root: ['--root', data.path] };
  }

  it('runs one node with its granted secret from the store, or from the environment with --secret', async () => {
    const { data, file, root } = await savedWorkflow();
    try {
      const run = cli([file, '--node', 'token', ...root, '--json']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, value: { length: 12, env: false } });
      const fromEnv = cli([file, '--node', 'token', ...root, '--secret', 'API_TOKEN', '--json'], { API_TOKEN: 'from-env' });
      expect(JSON.parse(fromEnv.stdout)).toMatchObject({ ok: true, value: { length: 8, env: true } });
    } finally {
      await data.remove();
    }
  });

  it('runs every node in order, the workspace node in <data dir>/workspaces/<name>/ made on first use', async () => {
    const { data, file, root } = await savedWorkflow();
    try {
      const run = cli([file, ...root, '--json']);
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout);
      expect(out.ok).toBe(true);
      expect(out.nodes.map((n: { id: string; ok: boolean }) => [n.id, n.ok])).toEqual([
        ['plain', true],
        ['token', true],
        ['files', true],
      ]);
      expect(out.nodes[2].value).toEqual([{ name: 'out.txt', kind: 'file' }]);
      const folder = path.join(data.path, 'workspaces', 'Secrets demo');
      expect((await stat(folder)).isDirectory()).toBe(true);
      expect(await readFile(path.join(folder, 'out.txt'), 'utf8')).toBe('111');
    } finally {
      await data.remove();
    }
  });

  it('says what to do for an unknown node, a code file given --node, and a file that is not a workflow', async () => {
    const { data, file, root } = await savedWorkflow();
    try {
      const unknown = cli([file, '--node', 'nope', ...root]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(`${file} has no node "nope"; its nodes are "plain", "token", "files". Give one of them to --node.`);
      const notWorkflow = path.join(data.path, 'not-a-workflow.json');
      await writeFile(notWorkflow, '{"code": "return 1"}');
      const bad = cli([notWorkflow, ...root]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`${notWorkflow} is not a workflow file:`);
      const codeWithNode = cli([code('secret.js'), '--node', 'x', ...ROOT]);
      expect(codeWithNode.code).toBe(2);
      expect(codeWithNode.stderr).toContain('--node only applies to a workflow file (WORKFLOW.json).');
    } finally {
      await data.remove();
    }
  });
});
