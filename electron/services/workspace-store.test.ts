// The workspace folders of workflows (workspace-store.ts) on the real file system: the default
// folder is made on first use, and a rename carries the chosen folder or the default folder
// (with its files) to the new name without losing anything.

import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, type TempDir } from '../testing/test-support.ts';
import { createWorkspaceStore, WORKSPACES_DIR } from './workspace-store.ts';

const dirs: TempDir[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});
async function made(prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  dirs.push(dir);
  return dir.path;
}

describe('workspace store', () => {
  it('makes the default folder on first use and moves it with a renamed workflow', async () => {
    const data = await made('ws-data');
    const store = createWorkspaceStore(data);
    const folder = await store.forRun('Old');
    expect(folder).toEqual({ ok: true, value: path.join(data, WORKSPACES_DIR, 'Old') });
    await writeFile(path.join(data, WORKSPACES_DIR, 'Old', 'keep.txt'), 'kept');
    const renamed = await store.rename('Old', 'New');
    expect(renamed).toMatchObject({ ok: true, value: { workflow: 'New', isDefault: true, exists: true } });
    expect(await readFile(path.join(data, WORKSPACES_DIR, 'New', 'keep.txt'), 'utf8')).toBe('kept');
  });

  it('leaves a default folder in place when the new name already has one, and carries a chosen folder', async () => {
    const data = await made('ws-data');
    const store = createWorkspaceStore(data);
    await mkdir(path.join(data, WORKSPACES_DIR, 'A'), { recursive: true });
    await mkdir(path.join(data, WORKSPACES_DIR, 'B'), { recursive: true });
    await writeFile(path.join(data, WORKSPACES_DIR, 'A', 'a.txt'), 'a');
    await store.rename('A', 'B');
    expect(await readFile(path.join(data, WORKSPACES_DIR, 'A', 'a.txt'), 'utf8')).toBe('a');

    const chosen = await made('ws-chosen');
    expect((await store.set('C', chosen)).ok).toBe(true);
    expect(await store.rename('C', 'D')).toMatchObject({ ok: true, value: { workflow: 'D', path: await realpath(chosen), isDefault: false } });
    expect(await store.get('C')).toMatchObject({ ok: true, value: { isDefault: true } });
  });
});
