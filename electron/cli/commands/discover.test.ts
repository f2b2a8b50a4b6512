import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DiscoverJson } from './discover.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, ['scripts/sandbox-packs.mjs', 'discover', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('sandbox-packs discover', () => {
  it('prints the JSON shape of the issue for the good root', () => {
    const run = cli(['--root', 'fixtures/discovery/good', '--json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as DiscoverJson;
    expect(json.root).toBe(path.join(repo, 'fixtures/discovery/good'));
    expect(json.packs).toHaveLength(1);
    const [geo] = json.packs;
    expect(geo).toMatchObject({ name: '@acme/geo', version: '1.2.0', status: 'ok', warnings: [] });
    expect(geo?.modules.map((m) => [m.specifier, m.kind, m.status])).toEqual([
      ['@acme/geo', 'js', 'ready'],
      ['@acme/geo/extra', 'js', 'ready'],
      ['@acme/geo/simplify-wasm', 'wasm', 'ready'],
    ]);
    for (const m of geo?.modules ?? []) {
      const exportsKey = m.specifier === '@acme/geo/extra' ? [] : ['exports'];
      expect(Object.keys(m).sort()).toEqual(['digest', 'kind', 'moduleId', 'specifier', 'status', 'summary', ...exportsKey].sort());
      expect(m.digest).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('exits 0 with rejected packs and skipped modules, reasons included', () => {
    const run = cli(['--json', '--root=fixtures/discovery/rules']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as DiscoverJson;
    const dup = json.packs.find((p) => p.name === 'duplicate-names');
    expect(dup).toEqual({
      name: 'duplicate-names',
      version: '1.0.0',
      status: 'rejected',
      code: 'duplicate-module-name',
      reason: 'Two modules resolve to the same specifier: "duplicate-names/extra" and "duplicate-names/Extra".',
      warnings: [],
      modules: [],
    });
    const dyn = json.packs.find((p) => p.name === 'dynamic-import');
    expect(dyn?.warnings).toEqual(['skill-missing: SKILL.md is missing; agents get no documentation for this pack.']);
    expect(dyn?.modules[0]).toEqual({
      specifier: 'dynamic-import',
      kind: 'js',
      status: 'skipped',
      code: 'js-dynamic-import',
      reason: 'index.js:3:10: import() is not allowed; use a static import of a file of this pack.',
      summary: 'dynamic-import (js)',
    });
  });

  it('prints a readable table by default, using SANDBOX_PACKS_ROOT when --root is absent', () => {
    const run = cli([], { SANDBOX_PACKS_ROOT: path.join(repo, 'fixtures/discovery/good') });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^PACK \/ MODULE\s+VERSION\s+KIND\s+STATUS\s+DETAIL$/);
    expect(lines[1]).toMatch(/^@acme\/geo\s+1\.2\.0\s+ok$/);
    expect(lines[2]).toMatch(/^ {2}@acme\/geo\s+js\s+ready\s+[0-9a-f]{12}$/);
    expect(run.stdout).toContain('1 pack(s), 0 rejected; 3 of 3 module(s) ready.');
  });

  it('exits 2 on an unreadable root and on bad usage', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'h1-cli-'));
    try {
      const missing = cli(['--root', path.join(dir, 'missing'), '--json']);
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim()).toBe(`The install root ${path.join(dir, 'missing')} cannot be read (ENOENT).`);
      expect(missing.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const bad = cli(['--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown option "--frobnicate".');
    expect(cli(['--root']).code).toBe(2);
  });
});
