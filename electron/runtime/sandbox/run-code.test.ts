// A Code node end to end through the pool with the real host capabilities: a real HTTP server,
// a real workspace directory, secrets; and the imported module sharing the node's grants.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutableModule } from '../../../shared/protocol/catalog.ts';
import { runCode } from './run-code.ts';
import { SandboxPool } from './sandbox-pool.ts';

const pool = new SandboxPool({ size: 1 });
let server: http.Server;
let port = 0;
let dir: string;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url, bytes: [0, 255] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sp-run-'));
});
afterAll(async () => {
  await pool.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fs.rm(dir, { recursive: true, force: true });
});

const reporter: ExecutableModule = {
  moduleId: 'js:reporter',
  kind: 'js',
  packName: '@acme/reporter',
  packVersion: '1.2.0',
  specifier: '@acme/reporter',
  displayName: '@acme/reporter',
  source: 'export async function report(url) { const r = await fetch(url); return r.json(); }\n',
  imports: {},
  digest: 'a'.repeat(64),
};
const resolution = { entries: { '@acme/reporter': 'js:reporter' }, modules: { 'js:reporter': reporter } };

describe('runCode', () => {
  it("lets an imported module use the node's fetch grant, and records it in the receipt", async () => {
    const result = await runCode(pool, {
      code: `import { report } from "@acme/reporter";\nreturn await report("http://localhost:${port}/status");`,
      resolution,
      grants: { fetch: { hosts: ['localhost'], allowPrivate: true } },
    });
    expect(result).toMatchObject({ ok: true, value: { path: '/status', bytes: [0, 255] } });
    expect(result.receipt.modules).toEqual([{ moduleId: 'js:reporter', displayName: '@acme/reporter', digest: 'a'.repeat(64) }]);
    expect(result.receipt.calls).toEqual([{ kind: 'capability', name: 'fetch', ok: true }]);
    expect(hits).toContain('GET /status');
  });

  it('denies the same module fetch when the node has no fetch grant', async () => {
    const result = await runCode(pool, { code: `import { report } from "@acme/reporter";\nreturn await report("http://localhost:${port}/x");`, resolution });
    expect(result).toMatchObject({
      ok: false,
      code: 'capability-denied',
      message: 'fetch called by @acme/reporter was denied: this node was not granted the fetch capability.',
    });
    expect(result.receipt.denied).toEqual([
      {
        kind: 'capability',
        request: 'fetch',
        from: '@acme/reporter',
        code: 'capability-denied',
        reason: 'fetch called by @acme/reporter was denied: this node was not granted the fetch capability.',
      },
    ]);
  });

  it('round-trips text and bytes through the workspace', async () => {
    const result = await runCode(pool, {
      code: 'await workspace.writeText("note.txt", "héllo ✓");\nawait workspace.writeBytes("raw.bin", new Uint8Array([1, 2, 250]));\nconst bytes = await workspace.readBytes("raw.bin");\nreturn { text: await workspace.readText("note.txt"), bytes: Array.from(bytes), isBytes: bytes instanceof Uint8Array, list: await workspace.list() };',
      resolution: { entries: {}, modules: {} },
      grants: { workspace: { dir } },
    });
    expect(result).toMatchObject({
      ok: true,
      value: {
        text: 'héllo ✓',
        bytes: [1, 2, 250],
        isBytes: true,
        list: [
          { name: 'note.txt', kind: 'file' },
          { name: 'raw.bin', kind: 'file' },
        ],
      },
    });
    expect(await fs.readFile(path.join(dir, 'note.txt'), 'utf8')).toBe('héllo ✓');
  });

  it('gives only granted secrets, and a guest-catchable error otherwise', async () => {
    const result = await runCode(pool, {
      code: 'const token = await getSecret("TOKEN");\nlet other;\ntry { await getSecret("OTHER"); } catch (e) { other = e.code; }\nreturn { token, other };',
      resolution: { entries: {}, modules: {} },
      grants: { secrets: { TOKEN: 't0k3n' } },
    });
    expect(result).toMatchObject({ ok: true, value: { token: 't0k3n', other: 'capability-denied' } });
    expect(result.receipt.denied.map((d) => d.request)).toEqual(['getSecret("OTHER")']);
  });

  it('caps captured console output', async () => {
    const result = await runCode(pool, {
      code: 'const line = "x".repeat(1000);\nfor (let i = 0; i < 100; i++) console.log(line);\n"done"',
      resolution: { entries: {}, modules: {} },
    });
    expect(result.ok).toBe(true);
    expect(result.logs.at(-1)).toEqual({ level: 'warn', text: '[console output truncated at 65536 bytes]' });
    expect(result.logs.reduce((n, l) => n + l.text.length, 0)).toBeLessThanOrEqual(65536 + 100);
  });
});
