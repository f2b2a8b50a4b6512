// The package commands without npm: argument handling, exit codes, JSON output, search.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), cwd: dir, env: { SANDBOX_PACKS_ROOT: path.join(dir, 'root') } });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('installer CLI', () => {
  it('searches the bundled index, as text and as JSON', async () => {
    const text = await run(['search', 'zip']);
    expect(text.code).toBe(0);
    expect(text.out).toContain('★ @nodetool-ai/sandbox-zip@1.0.0');
    const json = await run(['search', 'geo', '--json']);
    expect(JSON.parse(json.out)).toMatchObject({ ok: true, results: [{ name: '@nodetool-ai/sandbox-geo', recommended: false }] });
  });

  it('searches an index file given with --index, and reports a broken one with the key path', async () => {
    writeFileSync(
      path.join(dir, 'idx.json'),
      JSON.stringify({
        format: 1,
        packs: [{ name: 'acme-pack', description: 'Acme things', version: '2.0.0', sandboxModules: ['acme-pack'], recommended: false }],
      }),
    );
    expect(JSON.parse((await run(['search', 'acme', '--index', 'idx.json', '--json'])).out)).toMatchObject({ ok: true, results: [{ name: 'acme-pack' }] });
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ format: 1, packs: [{ name: 'acme-pack' }] }));
    const bad = await run(['search', 'acme', '--index', 'bad.json', '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toMatchObject({ ok: false, code: 'invalid-data' });
    expect(JSON.parse(bad.out).message).toContain('packs.0.description:');
  });

  it('rejects unknown options and missing arguments with exit 2, and git specs with exit 1 before touching the root', async () => {
    expect((await run(['install', '--bogus', 'x'])).code).toBe(2);
    expect((await run(['install'])).code).toBe(2);
    expect((await run(['update', 'a', 'b'])).code).toBe(2);
    const git = await run(['install', 'github:acme/pack', '--json']);
    expect(git.code).toBe(1);
    expect(JSON.parse(git.out)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: 'Git sources cannot be installed in this version; install a published version from the registry, or a .tgz made with `npm pack`.',
    });
    const injected = await run(['install', '--json', '--', '--registry=http://evil.example/']);
    expect(injected.code).toBe(1);
    expect(JSON.parse(injected.out)).toMatchObject({ ok: false, code: 'spec-unsupported' });
    expect(existsSync(path.join(dir, 'root'))).toBe(false);
  });

  it('lists an empty root and answers not-installed for trust --dry-run', async () => {
    expect((await run(['list'])).out).toBe('No packs installed.');
    const dry = await run(['trust', 'nothing-here', '--dry-run', '--json']);
    expect(dry.code).toBe(1);
    expect(JSON.parse(dry.out)).toEqual({ ok: false, code: 'not-installed', message: 'No pack named nothing-here is installed.' });
  });
});
