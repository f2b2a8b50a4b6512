// Pack-supplied text printed by the CLI shows hidden characters as \uXXXX: a bidi override in a
// version or a file name, a zero-width space in a description. The real CLI runs as a process
// over a real install tree (discover) and a registry index file (search); --json output stays
// JSON with the same values, and no raw hidden character reaches stdout in either form.

import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
let dir: string;

function cli(args: string[]) {
  const run = spawnSync(process.execPath, ['scripts/sandbox-packs.mjs', ...args], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function pack(name: string, manifest: object, files: Record<string, string>): Promise<void> {
  const packDir = path.join(dir, 'root', 'node_modules', name);
  await mkdir(path.join(packDir, 'sandbox'), { recursive: true });
  await writeFile(path.join(packDir, 'package.json'), JSON.stringify({ name, ...manifest }));
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(packDir, file), text);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-display-'));
  await pack(
    'bidi-version',
    { version: '1.0.0-\u202Ecod.exe', nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'sandbox/index.js' }] } },
    { 'sandbox/index.js': 'export const a = 1;\n' },
  );
  await pack(
    'bidi-file',
    {
      version: '1.0.0',
      nodetool: {
        apiVersion: 1,
        sandboxModules: [
          { name: '.', kind: 'js', file: 'sandbox/index.js' },
          { name: 'extra', kind: 'js', file: 'sandbox/m\u202Esj.txt' },
        ],
      },
    },
    { 'sandbox/index.js': 'export const a = 1;\n' },
  );
  const entry = {
    name: 'zw-pack',
    description: 'Reads p\u200Bng files \u2066safely\u2069 \u001b[2J',
    version: '1.0.0',
    sandboxModules: ['zw-pack'],
    recommended: false,
  };
  await writeFile(path.join(dir, 'index.json'), JSON.stringify({ format: 1, packs: [entry] }));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CLI output of pack-supplied text', () => {
  it('discover shows a bidi override in a version and in a skip reason as \\u202E', () => {
    const run = cli(['discover', '--root', path.join(dir, 'root')]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(HIDDEN);
    const lines = run.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('bidi-version'))).toMatch(
      /^bidi-version +1\.0\.0-\\u202Ecod\.exe +rejected +package\.json version "1\.0\.0-\\u202Ecod\.exe" is not a semver version\.$/,
    );
    expect(lines.find((l) => l.startsWith('  bidi-file/extra'))).toMatch(/ skipped +sandbox\/m\\u202Esj\.txt does not exist in the pack\.$/);

    const json = cli(['discover', '--root', path.join(dir, 'root'), '--json']);
    expect(json.stdout).not.toMatch(HIDDEN);
    const parsed = JSON.parse(json.stdout) as { packs: { name: string; version: string }[] };
    expect(parsed.packs.find((p) => p.name === 'bidi-version')?.version).toBe('1.0.0-\u202Ecod.exe');
  });

  it('search shows zero-width, isolate and escape characters in a description visibly; --json keeps the value', () => {
    const run = cli(['search', 'zw', '--index', path.join(dir, 'index.json')]);
    expect(run.code).toBe(0);
    // The hit and its modules; a note about the registry's search may follow (offline, or no search endpoint).
    expect(run.stdout.split('\n').slice(0, 2)).toEqual([
      '  zw-pack@1.0.0  Reads p\\u200Bng files \\u2066safely\\u2069 \\u001B[2J  [bundled index]',
      '    modules: zw-pack',
    ]);
    const json = cli(['search', 'zw', '--index', path.join(dir, 'index.json'), '--json']);
    expect(json.stdout).not.toMatch(HIDDEN);
    expect((JSON.parse(json.stdout) as { results: { description: string }[] }).results[0]?.description).toBe(
      'Reads p\u200Bng files \u2066safely\u2069 \u001b[2J',
    );
  });
});
