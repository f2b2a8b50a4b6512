// The --wasm scaffold's own build script (what an author runs after editing wasm-src/) rebuilds
// exactly the binary `create` wrote: same source, same flags. The pack gets the repository's
// AssemblyScript through a node_modules link, as `npm install` would give it its devDependency.

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { scaffoldPack } from './scaffold.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('create --wasm', () => {
  it('writes a build script that reproduces the binary create built, byte for byte', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'sp-scaffold-test-'));
    dirs.push(work);
    const dir = path.join(work, 'pack');
    const made = await scaffoldPack({ dir, name: '@acme/wasm-demo', wasm: true });
    expect(made.ok && made.value).toMatchObject({
      wasmBuilt: true,
      files: ['.gitignore', 'SKILL.md', 'package.json', 'sandbox/index.js', 'scripts/build-wasm.mjs', 'wasm-src/math.ts', 'wasm/math.wasm'],
    });
    const created = await readFile(path.join(dir, 'wasm/math.wasm'));
    await rm(path.join(dir, 'wasm/math.wasm'));
    await mkdir(path.join(dir, 'node_modules'));
    await symlink(path.join(REPO, 'node_modules/assemblyscript'), path.join(dir, 'node_modules/assemblyscript'), 'dir');
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build-wasm.mjs'], { cwd: dir });
    expect(stdout.trim()).toBe('wrote wasm/math.wasm');
    expect(Buffer.compare(await readFile(path.join(dir, 'wasm/math.wasm')), created)).toBe(0);
  }, 60_000);
});
