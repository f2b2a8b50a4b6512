// npm entries through the real compiler port implementation (electron/compiler, esbuild and the
// quickjs-ng admission probe): discovery hands the entry over, and the bundle that comes back
// becomes an ordinary ready module whose digest covers the compiler's identity and inputs.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { discover, type Discovery } from './discover.ts';

let root: string;
let found: Discovery;

async function write(rel: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'h1-npm-'));
  await write('node_modules/tiny-esm/package.json', JSON.stringify({ name: 'tiny-esm', version: '1.0.0', type: 'module', exports: './index.js' }));
  await write('node_modules/tiny-esm/index.js', 'export function shout(s) { return String(s).toUpperCase() + "!"; }\n');
  await write(
    'node_modules/npm-pack/package.json',
    JSON.stringify({
      name: 'npm-pack',
      version: '2.0.0',
      dependencies: { 'tiny-esm': '1.0.0' },
      nodetool: {
        apiVersion: 1,
        sandboxModules: [
          { name: '.', kind: 'js', npm: 'tiny-esm' },
          { name: 'missing', kind: 'js', npm: 'not-installed-anywhere' },
        ],
      },
    }),
  );
  const result = await discover(root, { compiler: createNpmCompiler({ root }) });
  if (!result.ok) throw new Error(result.message);
  found = result.value;
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('npm entries with the real compiler', () => {
  it('turns a compiled bundle into a ready module and skips what cannot be bundled', () => {
    const pack = found.packs.find((p) => p.name === 'npm-pack');
    expect(pack?.status).toBe('ok');
    const [ready, missing] = pack?.modules ?? [];
    expect(ready).toMatchObject({ specifier: 'npm-pack', status: 'ready' });
    expect(ready?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(missing).toMatchObject({ specifier: 'npm-pack/missing', status: 'skipped', code: 'npm-bundle-failed' });
    const module = pack?.graph?.modules.get(ready?.moduleId ?? '');
    expect(module?.source).toContain('shout');
    expect(module?.imports).toEqual({});
  });
});
