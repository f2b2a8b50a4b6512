// Bench section `mcp`: what an agent pays to run code through the MCP face, against the same run
// through the HTTP face — the same trivial code (no packs), each answered by the same contract
// method (`code.run`). The MCP server is the real `sandbox-packs mcp` subprocess driven by the SDK's
// client over stdio; the web host runs in this process. Per call MCP adds stdio framing, the SDK's
// request handling and the session allowlist lookup (three contract reads) before the run.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAppServices } from '../../electron/services/app-services.ts';
import { tempDir } from '../../electron/testing/test-support.ts';
import { startWebHost } from '../../electron/server/web-host.ts';
import { measure, printRatio, printTable, type BenchSection } from './harness.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CODE = 'return 1 + 1;';

export const mcpSection: BenchSection = {
  name: 'mcp',
  async run() {
    const data = await tempDir('bench-mcp');
    const created = await createAppServices({ dataDir: data.path });
    if (!created.ok) throw new Error(created.message);
    const services = created.value;
    const host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, port: 0 });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [path.join(REPO, 'scripts/sandbox-packs.mjs'), 'mcp', '--root', data.path],
          cwd: REPO,
          stderr: 'ignore',
        }),
      );
      const headers = { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' };
      const overHttp = async () => {
        const res = await fetch(`${host.origin}/api/rpc/code.run`, { method: 'POST', headers, body: JSON.stringify({ code: CODE, packages: [] }) });
        const json = (await res.json()) as { ok: boolean; value?: { result: { ok: boolean } } };
        if (!json.ok || !json.value?.result.ok) throw new Error('code.run over HTTP failed');
      };
      const overMcp = async () => {
        const result = (await client.callTool({ name: 'run_code', arguments: { code: CODE } })) as CallToolResult;
        if (result.isError) throw new Error('run_code over MCP failed');
      };
      const rows = [await measure('code.run over HTTP (trivial)', 40, overHttp, 5), await measure('run_code over MCP stdio (trivial)', 40, overMcp, 5)];
      printTable('MCP face: run_code over stdio vs code.run over HTTP, same trivial code', rows);
      printRatio('run_code MCP/HTTP', rows[1]!, rows[0]!, '≈1× (both are one run; the transports should vanish in it)');
    } finally {
      await client.close();
      await host.close();
      await services.dispose();
      await data.remove();
    }
  },
};
