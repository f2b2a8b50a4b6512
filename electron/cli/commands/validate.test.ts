// `sandbox-packs validate` as a real process against the real catalog of a fixture install root.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function cli(args: string[]) {
  const run = spawnSync(process.execPath, ['scripts/sandbox-packs.mjs', 'validate', ...args, '--root', 'fixtures/discovery/good'], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('sandbox-packs validate', () => {
  it('prints the command that installs a missing pack beside the sentence every face shows', () => {
    const run = cli(['fixtures/kernel/workflows/mixed.json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Install the pack that provides it (@acme/nope). (sandbox-packs install @acme/nope) [unknown-specifier]');
  });
  it('names the version a node was saved with, in the sentence and in the command (issue 29)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-validate-'));
    try {
      const file = path.join(dir, 'saved.json');
      const node = {
        id: 'n1',
        type: 'code',
        code: 'import { a } from "@acme/gone/extra";\nreturn a;',
        packages: [{ specifier: '@acme/gone/extra', resolvedPackVersion: '1.2.0' }],
      };
      writeFileSync(file, JSON.stringify({ nodes: [node] }));
      const run = cli([file]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        'Install the pack that provides it (@acme/gone@1.2.0, the version this node was saved with). (sandbox-packs install @acme/gone@1.2.0) [unknown-specifier]',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('reports errors and warnings per node, and exits 1', () => {
    const run = cli(['fixtures/kernel/workflows/mixed.json', '--json']);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.ok).toBe(false);
    const installed = out.issues.find((i: { code: string }) => i.code === 'digest-mismatch')?.message.match(/installed ([0-9a-f]{12})…/)?.[1];
    expect(installed).toMatch(/^[0-9a-f]{12}$/);
    expect(out.issues).toEqual([
      {
        nodeId: 'unknown',
        severity: 'error',
        code: 'unknown-specifier',
        specifier: '@acme/nope',
        message: expect.stringMatching(/ Install the pack that provides it \(@acme\/nope\)\.$/),
      },
      {
        nodeId: 'undeclared',
        severity: 'error',
        code: 'import-undeclared',
        specifier: '@acme/geo/extra',
        line: 1,
        column: 1,
        message: 'The code imports "@acme/geo/extra", which is not in this node\'s packages declaration; add it to the declaration.',
      },
      {
        nodeId: 'undeclared',
        severity: 'warning',
        code: 'declared-unused',
        specifier: '@acme/geo',
        message: '"@acme/geo" is declared but the code never imports it.',
      },
      {
        nodeId: 'drift',
        severity: 'warning',
        code: 'version-mismatch',
        specifier: '@acme/geo',
        message: '"@acme/geo" was saved with @acme/geo@1.0.0; 1.2.0 is installed and will be used.',
      },
      {
        nodeId: 'drift',
        severity: 'warning',
        code: 'digest-mismatch',
        specifier: '@acme/geo',
        message: `"@acme/geo" differs from the content the workflow was saved with (digest 000000000000…, installed ${installed}…); review @acme/geo before running.`,
      },
      {
        nodeId: 'dynamic',
        severity: 'error',
        code: 'dynamic-import',
        line: 1,
        column: 17,
        message: 'import() is not allowed in sandbox code; use a static import of a package declared on this node (line 1, column 17).',
      },
    ]);
  });

  it('refuses a name a declared module does not export (JS source and WASM facade), with its line and column', () => {
    const run = cli(['fixtures/kernel/workflows/unknown-export.json', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).issues).toEqual([
      {
        nodeId: 'typo',
        severity: 'error',
        code: 'import-unknown-export',
        specifier: '@acme/geo',
        line: 1,
        column: 21,
        message: '"@acme/geo" has no export named "havresine"; its exports are "haversine".',
      },
      {
        nodeId: 'typo',
        severity: 'error',
        code: 'import-unknown-export',
        specifier: '@acme/geo/simplify-wasm',
        line: 2,
        column: 15,
        message: '"@acme/geo/simplify-wasm" has no export named "mul"; its exports are "add", "scale".',
      },
    ]);
  });

  it('offers the fix that works: never "add it to the declaration" for node:fs or a pack that is not installed; a bare name gets "did you mean"', () => {
    const run = cli(['fixtures/kernel/workflows/fixes.json', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).issues).toEqual([
      {
        nodeId: 'builtin',
        severity: 'error',
        code: 'js-node-import',
        specifier: 'node:fs',
        line: 1,
        column: 1,
        message:
          'The code imports "node:fs", a Node built-in: sandbox code has no Node APIs, so no declaration can make it available. Use the node\'s own capabilities (its workspace, fetch) instead.',
      },
      {
        nodeId: 'missing',
        severity: 'error',
        code: 'unknown-specifier',
        specifier: '@acme/nope',
        line: 1,
        column: 1,
        message: 'The code imports "@acme/nope", which no installed pack provides. Install the pack that provides it (@acme/nope).',
      },
      {
        nodeId: 'bare',
        severity: 'error',
        code: 'unknown-specifier',
        specifier: 'geo',
        suggestion: '@acme/geo',
        line: 1,
        column: 1,
        message: 'The code imports "geo", which no installed pack provides. Did you mean "@acme/geo" (which is installed)?',
      },
      {
        nodeId: 'bare-listed',
        severity: 'error',
        code: 'unknown-specifier',
        specifier: 'sandbox-yaml',
        suggestion: '@nodetool-ai/sandbox-yaml',
        message: expect.stringMatching(/ Did you mean "@nodetool-ai\/sandbox-yaml" \(from @nodetool-ai\/sandbox-yaml, which you can install\)\?$/),
      },
    ]);
    // The text face adds an install command only where no other name is meant.
    const text = cli(['fixtures/kernel/workflows/fixes.json']);
    expect(text.stdout).toContain('(@acme/nope). (sandbox-packs install @acme/nope) [unknown-specifier]');
    expect(text.stdout).not.toContain('sandbox-packs install geo');
    expect(text.stdout).not.toContain('sandbox-packs install sandbox-yaml');
    expect(text.stdout).not.toContain('add it to the declaration');
  });

  it('exits 0 when there are only warnings, and prints a readable summary', () => {
    const run = cli(['fixtures/kernel/workflows/warnings-only.json']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      'warning unused: "@acme/geo/extra" is declared but the code never imports it. [declared-unused]\n1 node(s): 0 error(s), 1 warning(s).\n',
    );
  });

  it('exits 2 on a workflow that does not follow the schema, naming the key path', () => {
    const run = cli(['fixtures/kernel/workflows/invalid.json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nodes.0.type: Invalid input: expected "code"');
  });
});
