// Rename and delete on real files: a rename never replaces another saved workflow and carries the
// backup along; a delete takes the backup too, so the name does not come back "restored".
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowSchema, type Workflow } from '../../shared/protocol/workflow.ts';
import { tempDir, type TempDir } from '../testing/test-support.ts';
import { createWorkflowStore, WORKFLOWS_DIR } from './workflow-store.ts';

const flow = (code: string): Workflow => ({ nodes: [{ id: 'n', type: 'code', code, packages: [] }] });

let data: TempDir;
beforeEach(async () => {
  data = await tempDir('workflow-store');
});
afterEach(async () => {
  await data.remove();
});

describe('workflow rename and delete', () => {
  it('renames with the backup, and refuses a name that is taken', async () => {
    const store = createWorkflowStore(data.path, WorkflowSchema);
    await store.save('a', flow('return 1;'));
    await store.save('a', flow('return 2;'));
    await store.save('b', flow('return 3;'));
    expect(await store.rename('a', 'b')).toEqual({
      ok: false,
      code: 'name-taken',
      message: 'A workflow named "b" is saved already; choose another name, or delete that one first.',
    });
    expect(await store.load('b')).toEqual({ ok: true, value: flow('return 3;') });
    expect(await store.rename('a', 'c')).toEqual({ ok: true, value: 'c' });
    expect(await store.load('c')).toEqual({ ok: true, value: flow('return 2;') });
    expect((await readdir(path.join(data.path, WORKFLOWS_DIR))).sort()).toEqual(['b.json', 'c.json', 'c.json.bak']);
    expect(await store.rename('missing', 'd')).toMatchObject({ ok: false, code: 'not-found' });
    expect(await store.rename('c', 'C')).toEqual({ ok: true, value: 'C' });
    expect((await store.list()).ok && (await store.list())).toEqual({ ok: true, value: ['b', 'C'] });
  });

  it('deletes the file and its backup', async () => {
    const store = createWorkflowStore(data.path, WorkflowSchema);
    await store.save('a', flow('return 1;'));
    await store.save('a', flow('return 2;'));
    expect(await store.remove('a')).toEqual({ ok: true, value: 'a' });
    expect(await readdir(path.join(data.path, WORKFLOWS_DIR))).toEqual([]);
    expect(await store.load('a')).toEqual({ ok: false, code: 'not-found', message: 'There is no saved workflow named "a".' });
    expect(await store.remove('a')).toMatchObject({ ok: false, code: 'not-found' });
  });
});
