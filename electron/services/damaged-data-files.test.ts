// Settings and saved workflows damaged on disk when the app starts (truncated by a crash that
// bypassed the durable write, overwritten, hand-edited): the app starts, never crashes; a damaged
// file with a backup is restored from it, one without is moved aside (kept, not deleted) and the
// default used; each repair is a sentence in Diagnostics under start-up reconcile. A file that is
// valid JSON but breaks the format, with no backup, stays in place and is reported as before.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';
import { emptyLedger, writeLedger } from '../install/ledger-store.ts';
import { LOCK_DIR } from '../install/root-lock.ts';
import { tempDir, type TempDir } from '../testing/test-support.ts';
import { createAppServices } from './app-services.ts';
import { createSettingsStore } from './settings-store.ts';
import { createWorkflowStore } from './workflow-store.ts';

const dirs: TempDir[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});

const WORKFLOW = { nodes: [{ id: 'n1', type: 'code' as const, code: 'return 1;', packages: [] }] };
const EDITED = { nodes: [{ id: 'n1', type: 'code' as const, code: 'return 2;', packages: [] }] };

async function startApp(dataDir: string) {
  const created = await createAppServices({ dataDir });
  if (!created.ok) throw new Error(created.message);
  return created.value;
}

async function diagnosticsFixed(dataDir: string): Promise<string[]> {
  const services = await startApp(dataDir);
  try {
    const diagnostics = await services.dispatcher.handle('catalog.diagnostics', {}, { face: 'ipc' });
    if (!diagnostics.ok) throw new Error(diagnostics.message);
    const reconcile = (diagnostics.value as { reconcile: { ok: boolean; fixed?: string[] } }).reconcile;
    return reconcile.fixed ?? [];
  } finally {
    await services.dispose();
  }
}

const copiesOf = (dir: string, file: string): string[] => readdirSync(dir).filter((entry) => entry.startsWith(`${file}.damaged-`));

describe('damaged settings and workflows at start', () => {
  it('restores a cut-short settings.json and workflow from their backups, keeps the damaged copies, and says so in Diagnostics', async () => {
    const dir = await tempDir('damaged');
    dirs.push(dir);
    const settings = createSettingsStore(dir.path);
    const workflows = createWorkflowStore(dir.path, WorkflowSchema);
    expect(await settings.update({ sessionAllowlist: ['@acme/a'] })).toMatchObject({ ok: true });
    expect(await settings.update({ sessionAllowlist: ['@acme/b'] })).toMatchObject({ ok: true });
    expect(await workflows.save('flow', WORKFLOW)).toEqual({ ok: true, value: 'flow' });
    expect(await workflows.save('flow', EDITED)).toEqual({ ok: true, value: 'flow' });
    const settingsFile = path.join(dir.path, 'settings.json');
    const workflowFile = path.join(dir.path, 'workflows', 'flow.json');
    writeFileSync(settingsFile, readFileSync(settingsFile, 'utf8').slice(0, 20));
    writeFileSync(workflowFile, '');

    const fixed = await diagnosticsFixed(dir.path);
    const [settingsCopy] = copiesOf(dir.path, 'settings.json');
    const [workflowCopy] = copiesOf(path.join(dir.path, 'workflows'), 'flow.json');
    expect(fixed).toEqual([
      expect.stringMatching(
        new RegExp(
          `^The settings file settings\\.json was damaged \\(not valid JSON \\(cut short or overwritten\\)\\); it was restored from its backup of .+, and the damaged copy was kept as ${settingsCopy?.replace(/\./g, '\\.')}\\.$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^The saved workflow file flow\\.json was damaged \\(the file is empty\\); it was restored from its backup of .+, and the damaged copy was kept as ${workflowCopy?.replace(/\./g, '\\.')}\\.$`,
        ),
      ),
    ]);
    // The previous generation of each: what was saved before the last save.
    expect(await settings.get()).toEqual({ ok: true, value: { registry: 'https://registry.npmjs.org/', sessionAllowlist: ['@acme/a'] } });
    expect(await workflows.load('flow')).toEqual({ ok: true, value: WORKFLOW });
    expect(await workflows.list()).toEqual({ ok: true, value: ['flow'] });
  });

  it('moves a garbled file without a backup aside and uses the default; leaves valid JSON that breaks the format in place, reported', async () => {
    const dir = await tempDir('damaged');
    dirs.push(dir);
    mkdirSync(path.join(dir.path, 'workflows'));
    writeFileSync(path.join(dir.path, 'settings.json'), '{"registry": "https://registry.npmjs.org/", "sessionAll');
    writeFileSync(path.join(dir.path, 'workflows', 'lost.json'), '{"nodes": [');
    writeFileSync(path.join(dir.path, 'workflows', 'edited.json'), JSON.stringify({ nodes: 'not a list' }));

    const fixed = await diagnosticsFixed(dir.path);
    const [settingsCopy] = copiesOf(dir.path, 'settings.json');
    const [workflowCopy] = copiesOf(path.join(dir.path, 'workflows'), 'lost.json');
    expect(fixed).toEqual([
      `The settings file settings.json was damaged (not valid JSON (cut short or overwritten)) and had no usable backup; it was moved to ${settingsCopy} in the same folder, and the default settings are used until you change them.`,
      `The saved workflow file lost.json was damaged (not valid JSON (cut short or overwritten)) and had no usable backup; it was moved to ${workflowCopy} in the same folder, and the workflow "lost" is no longer listed.`,
    ]);
    expect(readFileSync(path.join(dir.path, settingsCopy as string), 'utf8')).toBe('{"registry": "https://registry.npmjs.org/", "sessionAll');
    expect(existsSync(path.join(dir.path, 'settings.json'))).toBe(false);
    const workflows = createWorkflowStore(dir.path, WorkflowSchema);
    expect(await workflows.list()).toEqual({ ok: true, value: ['edited'] });
    expect(await workflows.load('edited')).toEqual({
      ok: false,
      code: 'invalid-data',
      message: 'edited.json: nodes: Invalid input: expected array, received string',
    });
    expect(copiesOf(path.join(dir.path, 'workflows'), 'edited.json')).toEqual([]);
    expect(await createSettingsStore(dir.path).get()).toEqual({ ok: true, value: { registry: 'https://registry.npmjs.org/', sessionAllowlist: [] } });
  });

  it('a repair a later operation makes (a lock a killed CLI left) joins what Diagnostics shows', async () => {
    const dir = await tempDir('damaged');
    dirs.push(dir);
    await writeLedger(dir.path, emptyLedger('https://registry.npmjs.org/'));
    const services = await startApp(dir.path);
    try {
      // A CLI that died holding the lock: its pid is gone.
      const dead = spawnSync(process.execPath, ['-e', '0']).pid;
      mkdirSync(path.join(dir.path, LOCK_DIR));
      writeFileSync(
        path.join(dir.path, LOCK_DIR, 'owner.json'),
        JSON.stringify({ pid: dead, host: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z', operation: 'install' }),
      );
      expect(await services.dispatcher.handle('packs.uninstall', { name: '@acme/none' }, { face: 'ipc' })).toEqual({
        ok: false,
        code: 'not-installed',
        message: 'No pack named @acme/none is installed.',
      });
      const diagnostics = await services.dispatcher.handle('catalog.diagnostics', {}, { face: 'ipc' });
      expect(diagnostics.ok && (diagnostics.value as { reconcile: { fixed: string[] } }).reconcile.fixed).toEqual([
        `The install started by process ${dead} at 2026-01-01T00:00:00.000Z stopped without finishing and left the install root locked; the lock was taken over.`,
      ]);
    } finally {
      await services.dispose();
    }
  });
});
