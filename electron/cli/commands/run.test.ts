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

describe('sandbox-packs run --isolate', () => {
  const GEO = ['--package', '@acme/geo', '--package', '@acme/geo/simplify-wasm', '--input', 'input={"n":7}', '--json'];

  it('runs a JS pack isolated with the same value, and the receipt lists it with its calls', () => {
    const plain = cli([code('geo-wasm.js'), ...ROOT, ...GEO]);
    const isolated = cli([code('geo-wasm.js'), ...ROOT, ...GEO, '--isolate', '@acme/geo']);
    expect(isolated.stderr).toBe('');
    expect(isolated.code).toBe(0);
    const [before, after] = [JSON.parse(plain.stdout), JSON.parse(isolated.stdout)];
    expect(after.value).toEqual({ km: 111, sum: 5, scaled: 3, n: 7 });
    expect(after.value).toEqual(before.value);
    expect(before.receipt.isolated).toBeUndefined();
    expect(after.receipt.isolated).toEqual([{ specifier: '@acme/geo', displayName: '@acme/geo', calls: [{ export: 'haversine', count: 1 }] }]);
  });

  it("denies an isolated pack the node's granted secret, and says so on stderr with the isolated module", async () => {
    const data = await fixtureDataDir(path.join(repo, 'fixtures/discovery/isolation/node_modules/@sp-iso/reach'));
    try {
      const file = path.join(data.path, 'read.js');
      await writeFile(file, 'import { readSecret, shout } from "@sp-iso/reach";\nreturn shout(await readSecret("SP_TEST_TOKEN"));');
      const args = [file, '--root', data.path, '--package', '@sp-iso/reach', '--secret', 'SP_TEST_TOKEN'];
      const env = { SP_TEST_TOKEN: 'abc' };
      const trusted = cli([...args, '--json'], env);
      expect(JSON.parse(trusted.stdout)).toMatchObject({ ok: true, value: 'ABC!' });

      const isolated = cli([...args, '--isolate', '@sp-iso/reach', '--json'], env);
      expect(isolated.code).toBe(1);
      expect(JSON.parse(isolated.stdout)).toMatchObject({ ok: false, code: 'capability-denied' });
      expect(isolated.stdout).not.toContain('abc');

      const text = cli([...args, '--isolate', '@sp-iso/reach'], env);
      expect(text.code).toBe(1);
      expect(text.stdout).toBe('');
      const lines = text.stderr.trim().split('\n');
      expect(lines[0]).toMatch(
        /^error \(capability-denied\): .*@sp-iso\/reach runs isolated and can reach none of this node's network, workspace or secrets\./,
      );
      expect(lines.slice(1)).toEqual([
        '  denied capability "getSecret(\\"SP_TEST_TOKEN\\")" from @sp-iso/reach',
        '  isolated @sp-iso/reach (calls: readSecret)',
      ]);
    } finally {
      await data.remove();
    }
  });

  it('exits 2 when --isolate names no declared package, or is given where it cannot apply', async () => {
    const undeclared = cli([code('geo-wasm.js'), ...ROOT, '--package', '@acme/geo', '--isolate', '@acme/geo/extra']);
    expect(undeclared.code).toBe(2);
    expect(undeclared.stderr).toContain(
      '--isolate "@acme/geo/extra": no --package declares that specifier (declared: "@acme/geo"). Declare it with --package too, or isolate a declared one.',
    );
    const none = cli([code('geo-wasm.js'), ...ROOT, '--isolate', '@acme/geo']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--isolate "@acme/geo": no --package declares that specifier (no --package was given).');
    const codeact = cli([code('geo-wasm.js'), ...ROOT, '--codeact', '--isolate', '@acme/geo']);
    expect(codeact.code).toBe(2);
    expect(codeact.stderr).toContain("--isolate marks a --package declaration, and --codeact takes its packages from the code's imports");
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-cli-iso-'));
    try {
      const workflow = path.join(dir, 'flow.json');
      await writeFile(
        workflow,
        JSON.stringify({ nodes: [{ id: 'a', type: 'code', code: 'return 1;', packages: [{ specifier: '@acme/geo', isolation: true }] }] }),
      );
      const given = cli([workflow, ...ROOT, '--isolate', '@acme/geo']);
      expect(given.code).toBe(2);
      expect(given.stderr).toContain('--isolate does not apply to a workflow file: its nodes declare their own packages and grants.');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sandbox-packs run WORKFLOW.json with an isolated declaration', () => {
  it("takes isolation from the node's declaration in the file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-cli-iso-'));
    try {
      const workflow = path.join(dir, 'flow.json');
      const node = (isolation: boolean) => ({
        id: isolation ? 'isolated' : 'plain',
        type: 'code',
        code: 'import { haversine } from "@acme/geo"; return Math.round(haversine({ lat: 0, lon: 0 }, { lat: 0, lon: 1 }));',
        packages: [{ specifier: '@acme/geo', ...(isolation ? { isolation } : {}) }],
      });
      await writeFile(workflow, JSON.stringify({ nodes: [node(false), node(true)] }));
      const run = cli([workflow, ...ROOT, '--json']);
      expect(run.code).toBe(0);
      const [plain, isolated] = JSON.parse(run.stdout).nodes;
      expect([plain.value, isolated.value]).toEqual([111, 111]);
      expect(plain.receipt.isolated).toBeUndefined();
      expect(isolated.receipt.isolated).toEqual([{ specifier: '@acme/geo', displayName: '@acme/geo', calls: [{ export: 'haversine', count: 1 }] }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
