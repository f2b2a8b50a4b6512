// A full disk, for real: the data directory is a small tmpfs (we run as root, locally and in CI),
// filled with a filler file. An install that runs out of space in npm, one that cannot even write
// its journal, a workflow save and a settings change each answer `disk-full` with a sentence, and
// leave the ledger, the tree, the npm files, the workflow and the settings exactly as they were;
// with the space back, the same install succeeds on the same root.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';
import { createSettingsStore } from '../services/settings-store.ts';
import { createWorkflowStore } from '../services/workflow-store.ts';
import { runCli } from '../testing/cli-process.ts';
import { rootDisagreements } from '../testing/root-agreement.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createInstaller } from './installer.ts';

vi.setConfig({ testTimeout: 300_000 });

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const EVOLVING = '@sp-fixture/evolving';
const BULKY = '@sp-fixture/bulky';

/** Mount a 16 MB tmpfs, or say why not (only a kernel that refuses skips these tests). */
function mountTmpfs(): { dir: string } | { refused: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { refused: `mount -t tmpfs was refused (${(error as Error).message.split('\n')[0]}); a full disk cannot be made here` };
  }
}

const mounted = mountTmpfs();
if ('refused' in mounted) console.warn(`disk-full tests skipped: ${mounted.refused}`);

let registry: TestRegistry;
let packDir: string;

beforeAll(async () => {
  if ('refused' in mounted) return;
  registry = await startRegistry({ uplink: false });
  await registry.publish(path.join(FIXTURES, 'evolving-1.0.0'));
  // A pack whose tarball cannot fit in what is left: 3 MB that do not compress.
  packDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bulky-'));
  mkdirSync(path.join(packDir, 'sandbox'));
  writeFileSync(path.join(packDir, 'sandbox', 'index.js'), 'export const bulky = true;\n');
  writeFileSync(path.join(packDir, 'blob.bin'), randomBytes(3 * 1024 * 1024));
  writeFileSync(
    path.join(packDir, 'package.json'),
    JSON.stringify({
      name: BULKY,
      version: '1.0.0',
      license: 'MIT',
      nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'sandbox/index.js' }] },
    }),
  );
  await registry.publish(packDir);
}, 180_000);

afterAll(async () => {
  await registry?.stop();
  if (packDir) rmSync(packDir, { recursive: true, force: true });
  if ('dir' in mounted) {
    execFileSync('umount', [mounted.dir]);
    rmSync(mounted.dir, { recursive: true, force: true });
  }
});

/** JSON with its keys sorted: npm rewrites package.json in its own key order, which is not a change of state. */
function canonicalJson(text: string): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, v]) => [k, sort(v)]),
          )
        : value;
  return JSON.stringify(sort(JSON.parse(text)));
}

/**
 * Every file under the root, byte for byte — but npm's cache and its node_modules/.package-lock.json
 * (npm's own record of the tree, rebuilt when stale), the filler, the compile cache; package.json by content.
 */
function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (['.npm-cache', 'filler', '.sandbox-cache', 'node_modules/.package-lock.json'].includes(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (child === 'package.json') files[child] = canonicalJson(readFileSync(path.join(root, child), 'utf8'));
      else files[child] = readFileSync(path.join(root, child)).toString('base64');
    }
  };
  walk('');
  return files;
}

/** Leave `bytes` free on the file system holding `root`. */
function fillLeaving(root: string, bytes: number): void {
  const filler = path.join(root, 'filler');
  const current = (() => {
    try {
      return statSync(filler).size;
    } catch {
      return 0;
    }
  })();
  const { bavail, bsize } = statfsSync(root);
  const size = Math.max(0, current + bavail * bsize - bytes);
  rmSync(filler, { force: true });
  // Written in chunks: tmpfs takes exactly what it has, and the last write may itself run out.
  const chunk = Buffer.alloc(1024 * 1024);
  let written = 0;
  try {
    while (written < size) {
      const n = Math.min(chunk.length, size - written);
      writeFileSync(filler, chunk.subarray(0, n), { flag: 'a' });
      written += n;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
}

describe.skipIf('refused' in mounted)('a full disk', () => {
  it('an install, a workflow save and a settings change answer disk-full and keep the previous state; with space back the install succeeds', async () => {
    if (!('dir' in mounted)) return;
    const root = path.join(mounted.dir, 'data');
    const installed = await createInstaller({ root, registry: registry.url }).install(`${EVOLVING}@1.0.0`);
    expect(installed.ok).toBe(true);
    const workflows = createWorkflowStore(root, WorkflowSchema);
    const settings = createSettingsStore(root);
    const workflow = { nodes: [{ id: 'n1', type: 'code' as const, code: 'return 1;', packages: [{ specifier: EVOLVING }] }] };
    expect(await workflows.save('keep', workflow)).toEqual({ ok: true, value: 'keep' });
    expect(await settings.update({ registry: registry.url, sessionAllowlist: [EVOLVING] })).toMatchObject({ ok: true });
    const before = snapshot(root);

    // 1. npm runs out of space fetching and extracting the pack (the journal still fits).
    fillLeaving(root, 1024 * 1024);
    const npmFull = await runCli(['install', BULKY, '--root', root]);
    expect(npmFull.code, npmFull.stderr).toBe(1);
    expect(npmFull.stderr).toMatch(
      /^disk-full: The disk is full: npm ran out of space while installing @sp-fixture\/bulky \(.*ENOSPC.*\)\. Free some space, then try again\. What it had changed was undone; the install root is as it was\.$/m,
    );
    expect(snapshot(root)).toEqual(before);

    // 2. Not a byte left: the journal cannot be written, so nothing starts.
    fillLeaving(root, 0);
    const noRoom = await runCli(['install', BULKY, '--root', root]);
    expect(noRoom.code, noRoom.stderr).toBe(1);
    expect(noRoom.stderr).toContain(
      `disk-full: The disk holding the install root ${root} is full, so installing ${BULKY} could not finish. Free some space, then try again.`,
    );
    expect(snapshot(root)).toEqual(before);

    // 3. A workflow save and a settings change: a sentence each, the files as they were.
    expect(await workflows.save('keep', { nodes: [] })).toEqual({
      ok: false,
      code: 'disk-full',
      message:
        'The disk holding the data directory is full, so the workflow "keep" could not be saved; the saved copy is as it was. Free some space, then save again.',
    });
    expect(await settings.update({ sessionAllowlist: [] })).toEqual({
      ok: false,
      code: 'disk-full',
      message: 'The disk holding the data directory is full, so the settings could not be saved; they are as they were. Free some space, then try again.',
    });
    expect(snapshot(root)).toEqual(before);
    expect(await workflows.load('keep')).toEqual({ ok: true, value: workflow });

    // 4. Space back: the same root takes the same install.
    rmSync(path.join(root, 'filler'));
    const again = await runCli(['install', BULKY, '--root', root]);
    expect(again.code, again.stderr).toBe(0);
    expect(await rootDisagreements(root)).toEqual([]);
  });

  it('the disk fills up after npm ran, just before the pack is recorded: disk-full, and what npm changed is rolled back (at once, or at the next start)', async () => {
    if (!('dir' in mounted)) return;
    const root = path.join(mounted.dir, 'late');
    expect((await createInstaller({ root, registry: registry.url }).install(`${EVOLVING}@1.0.0`)).ok).toBe(true);
    const before = snapshot(root);
    // The compile hook runs after npm and right before the ledger is written: the disk fills there.
    const filling = createInstaller({ root, registry: registry.url, compile: async () => fillLeaving(root, 0) });
    const result = await filling.install(BULKY);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('disk-full');
    expect(result.message).toMatch(
      /^The disk is full: @sp-fixture\/bulky could not be recorded after npm installed it \(ENOSPC: no space left on device, .*\)\. Free some space, then try again\. (What it had changed was undone; the install root is as it was\.|The install root is put back as it was at the next install, update or start, once there is space\.)$/,
    );
    expect(JSON.parse(readFileSync(path.join(root, 'sandbox-packs-ledger.json'), 'utf8')).packs).not.toHaveProperty([BULKY]);
    rmSync(path.join(root, 'filler'));
    // With space back, the next command puts back whatever was left and says so.
    const listed = await runCli(['list', '--root', root]);
    expect(listed.code, listed.stderr).toBe(0);
    if (result.message.endsWith('at the next install, update or start, once there is space.')) {
      expect(listed.stderr).toContain(`[reconcile] Rolled back the interrupted install of ${BULKY}`);
    }
    expect(listed.stdout).toBe(`${EVOLVING}@1.0.0  sandbox-only  sandbox-only · active  not offered to agents  registry\n`);
    expect(snapshot(root)).toEqual(before);
    expect(await rootDisagreements(root)).toEqual([]);
  });
});
