// `create` then `check`, for real: the app's npm packs the folder, the real installer installs the
// tarball into a temporary root (scripts off), the real catalog discovers it, and SKILL.md's
// examples run in the real sandbox. A scaffolded pack passes; each failure class (a skipped
// module, an over-cap file, broken frontmatter, an example that throws, a wrong `// →` value, an
// install script) is one edit of a scaffolded pack and gives its exact code, file and line.

import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../cli/commands/check.ts';
import { create } from '../cli/commands/create.ts';
import type { CliIo } from '../cli/command.ts';
import { checkText } from './check-text.ts';
import { checkPack, type CheckReport } from './pack-check.ts';
import { scaffoldPack } from './scaffold.ts';

const NAME = '@sp-fixture/authoring-demo';
let work: string;
let n = 0;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'sp-authoring-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A freshly scaffolded pack, then `edit` applied to its folder. */
async function pack(edit?: (dir: string) => Promise<void>, wasm = false): Promise<string> {
  const dir = path.join(work, `pack-${++n}`);
  const made = await scaffoldPack({ dir, name: NAME, wasm });
  if (!made.ok) throw new Error(made.message);
  await edit?.(dir);
  return dir;
}

async function report(dir: string, examples = true): Promise<CheckReport> {
  const result = await checkPack({ dir, examples });
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.value;
}

async function editFile(dir: string, rel: string, change: (text: string) => string): Promise<void> {
  const file = path.join(dir, rel);
  await writeFile(file, change(await readFile(file, 'utf8')));
}

function io(cwd: string): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { out: (t) => stdout.push(t), err: (t) => stderr.push(t), env: process.env, cwd, stdout, stderr };
}

describe('create, then check', () => {
  it('a scaffolded pack passes: packed files, sandbox-only, module ready, sizes under the caps, both examples checked', async () => {
    const r = await report(await pack());
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    // `files` is respected: .gitignore is not shipped.
    expect(r.tarball.files).toEqual(['SKILL.md', 'package.json', 'sandbox/index.js']);
    expect(r).toMatchObject({ name: NAME, version: '0.1.0', installMode: 'sandbox-only', status: 'active', scripts: [], packStatus: 'ok' });
    expect(r.modules).toEqual([
      {
        specifier: NAME,
        kind: 'js',
        status: 'ready',
        summary: `${NAME} (js): Greetings and sums (replace with what your pack does)`,
        exports: ['greet', 'sum'],
      },
    ]);
    expect(r.sizes.map((s) => [s.file, s.what, s.cap])).toEqual([
      ['package.json', 'package.json', 8 * 1024 * 1024],
      ['sandbox/index.js', `JS module ${NAME}`, 256 * 1024],
      ['SKILL.md', 'SKILL.md', 16 * 1024],
      ['', 'pack total (files discovery reads)', 8 * 1024 * 1024],
    ]);
    expect(r.examples?.map((e) => [e.fenceLine, e.status, e.assertions])).toEqual([
      [14, 'passed', 1],
      [21, 'passed', 1],
    ]);
  }, 60_000);

  it('with --wasm: the AssemblyScript module is built at create time, ready, and its examples pass; sources are not shipped', async () => {
    const r = await report(await pack(undefined, true));
    expect(r.problems).toEqual([]);
    expect(r.tarball.files).toEqual(['SKILL.md', 'package.json', 'sandbox/index.js', 'wasm/math.wasm']);
    expect(r.modules.map((m) => [m.specifier, m.kind, m.status, m.exports])).toEqual([
      [NAME, 'js', 'ready', ['greet', 'sum']],
      [`${NAME}/math-wasm`, 'wasm', 'ready', ['add', 'lerp', 'shout', 'byteSum']],
    ]);
    // The template shows both kinds of export, scalar and through the canonical ABI, with their types.
    expect(r.modules[1]?.signatures).toEqual([
      'add(f64, f64) → f64 (async)',
      'lerp(f64, f64, f64) → f64 (async)',
      'shout(string) → string (async)',
      'byteSum(bytes) → i32 (async)',
    ]);
    expect(r.examples?.map((e) => e.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'passed']);
  }, 60_000);
});

describe('each failure class gives its code, file and line', () => {
  it('a skipped module (require in an authored module)', async () => {
    const dir = await pack(async (d) => {
      await writeFile(path.join(d, 'sandbox/extra.js'), 'const fs = require("fs");\nexport default fs;\n');
      await editFile(d, 'package.json', (t) => {
        const pkg = JSON.parse(t) as { nodetool: { sandboxModules: object[] } };
        pkg.nodetool.sandboxModules.push({ name: 'extra', kind: 'js', file: 'sandbox/extra.js' });
        return JSON.stringify(pkg, null, 2);
      });
    });
    const r = await report(dir, false);
    expect(r.ok).toBe(false);
    expect(r.modules.find((m) => m.specifier === `${NAME}/extra`)).toMatchObject({ status: 'skipped', code: 'js-require' });
    expect(r.problems).toEqual([{ code: 'js-require', message: expect.stringMatching(new RegExp(`^${NAME}/extra: `)) as unknown, file: 'sandbox/extra.js' }]);
  }, 60_000);

  it('an over-cap file: a 300 KB authored module is file-too-large and OVER in the sizes table', async () => {
    const dir = await pack((d) => editFile(d, 'sandbox/index.js', (t) => `${t}// ${'x'.repeat(300 * 1024)}\n`));
    const r = await report(dir);
    expect(r.problems).toEqual([
      { code: 'file-too-large', message: `${NAME}: sandbox/index.js is 300.4 KB, over the 256 KB limit for this kind of file.`, file: 'sandbox/index.js' },
    ]);
    // Its examples are not run (the skip is the problem), and say why.
    expect(r.examples?.map((e) => [e.status, e.note])).toEqual([
      ['skipped', `imports ${NAME}, which was skipped`],
      ['skipped', `imports ${NAME}, which was skipped`],
    ]);
    const row = r.sizes.find((s) => s.file === 'sandbox/index.js');
    expect(row && row.bytes > row.cap).toBe(true);
  }, 60_000);

  it('broken frontmatter: skill-invalid at the line of the bad key', async () => {
    const dir = await pack((d) => editFile(d, 'SKILL.md', (t) => t.replace(/^name: .*$/m, 'name: Not A Slug')));
    const r = await report(dir, false);
    expect(r.problems).toEqual([
      { code: 'skill-invalid', message: 'SKILL.md frontmatter: name: use lower-case letters, digits, ".", "_" or "-"', file: 'SKILL.md', line: 2 },
    ]);
  }, 60_000);

  it('an example that throws: the sandbox code and message at its SKILL.md line', async () => {
    const dir = await pack((d) =>
      editFile(d, 'SKILL.md', (t) => t.replace('greet("Ada"); // → "Hello, Ada!"', 'greet("Ada"); // → "Hello, Ada!"\nnull.name;')),
    );
    const r = await report(dir);
    expect(r.problems).toEqual([
      { code: 'runtime-error', message: "SKILL.md line 17: TypeError: cannot read property 'name' of null (SKILL.md line 17)", file: 'SKILL.md', line: 17 },
    ]);
    expect(r.examples?.map((e) => e.status)).toEqual(['failed', 'passed']);
  }, 60_000);

  it('a module that throws at import is not ready: fails-at-import, the problem at its file and line, its examples not run', async () => {
    const dir = await pack((d) => editFile(d, 'sandbox/index.js', (t) => `const config = null;\nconst mode = config.mode;\n${t}`));
    const r = await report(dir);
    expect(r.ok).toBe(false);
    const because = "TypeError: cannot read property 'mode' of null";
    expect(r.modules).toEqual([
      expect.objectContaining({
        specifier: NAME,
        status: 'fails-at-import',
        code: 'runtime-error',
        reason: `importing it throws: ${because} (in ${NAME}, line 2, column 21)`,
      }),
    ]);
    expect(r.problems).toEqual([
      {
        code: 'runtime-error',
        message: `${NAME} is not ready: importing it throws, so every node that imports it fails. ${because} (in ${NAME} (sandbox/index.js), line 2, column 21)`,
        file: 'sandbox/index.js',
        line: 2,
      },
    ]);
    expect(r.examples?.map((e) => [e.status, e.note])).toEqual([
      ['skipped', `imports ${NAME}, which throws when imported`],
      ['skipped', `imports ${NAME}, which throws when imported`],
    ]);
    expect(checkText(r)).toContain(`  ${NAME}  js    fails-at-import  runtime-error: importing it throws: ${because}`);
    // The CLI says so and exits 1, so a pack's CI fails.
    const cli = io(dir);
    expect(await check.run(['--no-examples'], cli)).toBe(1);
    expect(cli.stdout.join('\n')).toContain(`check FAILED (1 problem)`);
  }, 60_000);

  it("an example that fails inside the pack's module: the module's file and line, and the example's SKILL.md line", async () => {
    const dir = await pack((d) =>
      editFile(d, 'sandbox/index.js', (t) =>
        t.replace(/export function greet\(name\) \{\n/, 'export function greet(name) {\n  if (name === "Ada") return undefined.length;\n'),
      ),
    );
    const r = await report(dir);
    expect(r.problems).toEqual([
      {
        code: 'runtime-error',
        message: `SKILL.md line 16: TypeError: cannot read property 'length' of undefined (in ${NAME} (sandbox/index.js), line 6, column 40; called from SKILL.md line 16)`,
        file: 'SKILL.md',
        line: 16,
      },
    ]);
  }, 60_000);

  it('a wrong `// →` value: example-mismatch with expected and actual', async () => {
    const dir = await pack((d) => editFile(d, 'SKILL.md', (t) => t.replace('// → 6.5', '// → 7')));
    const r = await report(dir);
    expect(r.problems).toEqual([{ code: 'example-mismatch', message: 'SKILL.md line 23: expected 7, got 6.5.', file: 'SKILL.md', line: 23 }]);
    // --no-examples skips them: the same pack then passes.
    expect((await report(dir, false)).problems).toEqual([]);
  }, 60_000);

  it('an install script: listed verbatim, and install-script-ignored at its package.json line', async () => {
    const dir = await pack((d) =>
      editFile(d, 'package.json', (t) => t.replace('"keywords": [', '"scripts": {\n    "postinstall": "node setup.js"\n  },\n  "keywords": [')),
    );
    const r = await report(dir, false);
    expect(r.scripts).toEqual([{ package: NAME, version: '0.1.0', path: `node_modules/${NAME}`, event: 'postinstall', command: 'node setup.js', own: true }]);
    expect(r.installMode).toBe('sandbox-only');
    expect(r.problems).toEqual([
      {
        code: 'install-script-ignored',
        message:
          'scripts.postinstall ("node setup.js") never runs: the app installs packs with scripts off, and a sandbox-only pack is never rebuilt. Ship built files instead (build before npm publish), or remove the script.',
        file: 'package.json',
        line: 8,
      },
    ]);
  }, 60_000);
});

describe('install modes', () => {
  it('a hybrid pack (register + scripts) is reported as waiting for trust with its scripts, not as a problem', async () => {
    const dir = await pack((d) =>
      editFile(d, 'package.json', (t) => {
        const pkg = JSON.parse(t) as { scripts?: Record<string, string>; nodetool: Record<string, unknown> };
        pkg.scripts = { install: 'node build-native.js' };
        pkg.nodetool.register = 'host/register.js';
        return JSON.stringify(pkg, null, 2);
      }),
    );
    const r = await report(dir, false);
    expect(r).toMatchObject({ ok: true, installMode: 'hybrid', status: 'needs-trust', problems: [] });
    expect(r.scripts.map((s) => [s.event, s.command, s.own])).toEqual([['install', 'node build-native.js', true]]);
    expect(checkText(r).split('\n').slice(2, 5)).toEqual([
      "Install mode: hybrid: waits for the user's trust (host code or install scripts) before it is active",
      'Install scripts a user would be shown:',
      `  ${NAME}@0.1.0 install: node build-native.js`,
    ]);
  }, 60_000);
});

describe('the CLI faces', () => {
  it('create refuses a non-empty folder and a bad name; check --json prints the report and exits 1 on a problem; temp dirs are gone', async () => {
    const cwd = path.join(work, 'cli');
    await mkdir(path.join(cwd, 'full'), { recursive: true });
    await writeFile(path.join(cwd, 'full', 'x'), '');
    const a = io(cwd);
    expect(await create.run(['full'], a)).toBe(2);
    expect(a.stderr).toEqual([`usage: ${path.join(cwd, 'full')} is not empty; create a pack in a new or empty folder.`]);
    const b = io(cwd);
    expect(await create.run(['Bad Name'], b)).toBe(2);
    expect(b.stderr).toEqual(['usage: "bad name" is not a valid npm package name; give one with --name (e.g. --name @acme/sandbox-tools).']);

    const c = io(cwd);
    expect(await create.run(['demo', '--name', NAME], c)).toBe(0);
    await editFile(path.join(cwd, 'demo'), 'SKILL.md', (t) => t.replace('// → 6.5', '// → 7'));
    // Run with a private TMPDIR so "nothing left behind" can be seen.
    const tmp = path.join(work, 'tmp');
    await mkdir(tmp);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const d = io(path.join(cwd, 'demo'));
    try {
      expect(await check.run(['--json'], d)).toBe(1);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    const json = JSON.parse(d.stdout.join('')) as CheckReport;
    expect(json).toMatchObject({ ok: false, name: NAME, problems: [{ code: 'example-mismatch', line: 23 }] });
    // (tsx, which runs this test's workers, keeps its own compile cache there; on Node 22+ through
    // Node's module compile cache, node-compile-cache.)
    expect((await readdir(tmp)).filter((f) => !f.startsWith('tsx-') && f !== 'node-compile-cache')).toEqual([]);
  }, 60_000);
});
