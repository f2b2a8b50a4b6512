// Issue 29 items 7 and 14 through the real CLI processes: a data directory seeded by the real first
// run (the app's own tarball, npm with scripts off, no registry), then `sandbox-packs mcp` over the
// SDK's stdio client. A shipped, sandbox-only pack is trusted for agents by default, so an agent
// gets its modules out of the box; `untrust` takes them away at the next call and `trust` gives
// them back; and `list` prints the same state words the app's screens derive from the row.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateWords } from '../../shared/contract/pack-state.ts';
import type { InstalledPack } from '../../shared/contract/pack-schemas.ts';
import { runFirstRun } from '../first-run/first-run.ts';
import { shippedTarball } from '../first-run/shipped-tarballs.ts';
import { SHIPPED_PACKS } from '../platform/assets.ts';
import { REPO_ROOT } from '../testing/test-support.ts';

const YAML = SHIPPED_PACKS.find((p) => p.dir === 'sandbox-yaml')!;
const CLI = path.join(REPO_ROOT, 'scripts/sandbox-packs.mjs');

let dataDir: string;
let client: Client;

function cli(args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args, '--root', dataDir], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const listed = async () => ((await call('list_sandbox_modules')).structuredContent as { modules: { specifier: string }[] }).modules.map((m) => m.specifier);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-mcp-shipped-'));
  const seeded = await runFirstRun({ dataDir, tarball: shippedTarball, registry: 'http://127.0.0.1:9/', packs: [YAML] });
  if (!seeded.ok) throw new Error(`${seeded.code}: ${seeded.message}`);
  client = new Client({ name: 'mcp-shipped-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', dataDir], cwd: REPO_ROOT, stderr: 'pipe' }));
  await client.listTools();
}, 300_000);

afterAll(async () => {
  await client?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('trust for agents: shipped packs by default, revocable and grantable from the CLI', () => {
  it("an agent gets a shipped pack's modules out of the box, and reads its SKILL.md as trusted", async () => {
    expect(await listed()).toContain(YAML.name);
    const skill = await call('read_pack_skill', { packName: YAML.name });
    expect(skill.structuredContent).toMatchObject({ ok: true, trusted: true });
  }, 60_000);

  it('`list` prints the words every screen shows for the row, and its JSON carries them', () => {
    const json = cli(['list', '--json']);
    expect(json.code).toBe(0);
    const row = (JSON.parse(json.stdout) as { packs: (InstalledPack & { states: unknown })[] }).packs.find((p) => p.name === YAML.name)!;
    expect(row.states).toEqual({ setup: 'sandbox-only · active', use: 'offered to agents', source: 'shipped with the app' });
    const text = cli(['list']);
    expect(text.stdout).toMatch(new RegExp(`^${YAML.name}@\\S+  sandbox-only  sandbox-only · active  offered to agents  shipped with the app$`, 'm'));
    // What the app's services answer for the row gives the same words (the shared derivation).
    expect(stateWords({ ...row, shipped: true })).toEqual(row.states);
  }, 60_000);

  it('`untrust` takes its modules from the agent at the next call; `trust` gives them back', async () => {
    const revoked = cli(['untrust', YAML.name]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`is no longer trusted for agents: its modules leave the agent's default allowlist`);
    expect(await listed()).not.toContain(YAML.name);
    expect(cli(['list']).stdout).toMatch(
      new RegExp(`^${YAML.name}@\\S+  sandbox-only  sandbox-only · active  not offered to agents  shipped with the app$`, 'm'),
    );
    expect(((await call('read_pack_skill', { packName: YAML.name })).structuredContent as { ok: boolean }).ok).toBe(false);

    const granted = cli(['trust', YAML.name]);
    expect(granted.code).toBe(0);
    expect(granted.stdout).toContain('for agents:');
    expect(await listed()).toContain(YAML.name);
  }, 120_000);
});
