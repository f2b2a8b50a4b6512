// Test support (imported by tests only): a managed install root built the way a user builds one —
// each fixture pack packed with `npm pack` and installed from its local tarball by the real
// installer (scripts off, no registry contact), and the hybrid pack trusted through the real trust
// flow. What the MCP server then reads (ledger, trust, catalog, SKILL.md) is the real thing.
//
//   @sp-mcp/trusted-kit   hybrid, trusted        JS module, plain SKILL.md
//   @acme/geo             sandbox-only, untrusted JS + internal helper + WASM, SKILL.md
//   @sp-mcp/hostile-docs  sandbox-only, untrusted JS, SKILL.md that tries to break its quote

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInstaller } from '../install/index.ts';
import { runNpm } from '../install/npm-runner.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MCP_FIXTURES = path.resolve(HERE, '..', 'mcp', 'fixtures');
const REPO = path.resolve(HERE, '..', '..');
/** Nobody listens here: any registry use would fail the install. */
const UNREACHABLE = 'http://127.0.0.1:9/';

export const PACK_SOURCES = {
  trustedKit: path.join(MCP_FIXTURES, 'trusted-kit-1.0.0'),
  geo: path.join(REPO, 'fixtures', 'discovery', 'good', 'node_modules', '@acme', 'geo'),
  hostileDocs: path.join(MCP_FIXTURES, 'hostile-docs-1.0.0'),
} as const;

export interface TestRoot {
  readonly path: string;
  remove(): Promise<void>;
}

export async function buildMcpTestRoot(): Promise<TestRoot> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'sp-mcp-'));
  const root = path.join(base, 'root');
  const tarballs = path.join(base, 'tgz');
  await mkdir(root);
  await mkdir(tarballs);
  const remove = () => rm(base, { recursive: true, force: true });
  try {
    const installer = createInstaller({ root, registry: UNREACHABLE });
    for (const source of Object.values(PACK_SOURCES)) {
      const packed = await runNpm(['pack', source, '--pack-destination', tarballs, '--ignore-scripts', '--json'], { cwd: tarballs });
      if (packed.code !== 0) throw new Error(`npm pack ${source} failed: ${packed.stderr}`);
      const [info] = JSON.parse(packed.stdout) as { filename: string }[];
      const installed = await installer.install(path.join(tarballs, info!.filename));
      if (!installed.ok) throw new Error(`installing ${source}: ${installed.code}: ${installed.message}`);
    }
    const trusted = await installer.trust('@sp-mcp/trusted-kit');
    if (!trusted.ok || trusted.value.status !== 'active') throw new Error(`trusting @sp-mcp/trusted-kit: ${JSON.stringify(trusted)}`);
    return { path: root, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
