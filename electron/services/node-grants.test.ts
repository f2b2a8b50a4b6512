// code.run with `nodeGrants` through the app's real services (dispatcher, secret store, workspace
// folders, QuickJS sandbox): the page names a secret and its workflow, main supplies the value and
// the folder; an agent (the MCP face) is refused both; a chosen folder must be a full path to an
// existing folder outside the data directory, and a chosen folder that disappeared is said so.

import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, type TempDir } from '../testing/test-support.ts';
import { createAppServices, type AppServices } from './app-services.ts';

const dirs: TempDir[] = [];
const opened: AppServices[] = [];
afterEach(async () => {
  for (const services of opened.splice(0)) await services.dispose();
  for (const dir of dirs.splice(0)) await dir.remove();
});

async function app(pickFolder?: (title: string) => Promise<string | undefined>): Promise<{ services: AppServices; data: string }> {
  const dir = await tempDir('grants');
  dirs.push(dir);
  const created = await createAppServices({ dataDir: dir.path, ...(pickFolder ? { pickFolder } : {}) });
  if (!created.ok) throw new Error(created.message);
  opened.push(created.value);
  return { services: created.value, data: dir.path };
}

const SECRET_CODE = 'return (await getSecret("API_TOKEN")).length;';
const WRITE_CODE = 'await workspace.writeText("a.txt", "x"); return 1;';

describe('code.run nodeGrants', () => {
  it('resolves a secret by name from the store for the app page, and refuses an agent', async () => {
    const { services } = await app();
    const call = (method: string, request: unknown, face: 'http' | 'mcp' | 'ipc' = 'http') => services.dispatcher.handle(method, request, { face });
    expect(await call('secrets.set', { name: 'API_TOKEN', value: 'abcdef' })).toEqual({ ok: true, value: { name: 'API_TOKEN' } });
    const listed = await call('secrets.list', {});
    expect(listed).toEqual({ ok: true, value: { storage: 'owner-only-file', names: ['API_TOKEN'] } });

    const ran = await call('code.run', { code: SECRET_CODE, packages: [], nodeGrants: { secrets: ['API_TOKEN'] } }, 'ipc');
    expect(ran).toMatchObject({ ok: true, value: { result: { ok: true, value: 6 } } });
    const notGranted = await call('code.run', { code: SECRET_CODE, packages: [] });
    expect(notGranted).toMatchObject({ ok: true, value: { result: { ok: false, code: 'capability-denied' } } });
    const unset = await call('code.run', { code: 'return await getSecret("OTHER");', packages: [], nodeGrants: { secrets: ['OTHER'] } });
    expect(unset).toMatchObject({ ok: true, value: { result: { ok: false, code: 'secret-not-set' } } });
    const agent = await call('code.run', { code: SECRET_CODE, packages: [], nodeGrants: { secrets: ['API_TOKEN'] } }, 'mcp');
    expect(agent).toEqual({ ok: false, code: 'capability-denied', message: 'Secrets and workspace folders are granted only to runs started in the app.' });
    // A page cannot send a value or a folder with a run: the contract has no field for either.
    const widened = await call('code.run', { code: SECRET_CODE, packages: [], nodeGrants: { secrets: { API_TOKEN: 'x' } } });
    expect(widened).toMatchObject({ ok: false, code: 'invalid-request' });
    const folder = await call('code.run', { code: WRITE_CODE, packages: [], nodeGrants: { workspace: { workflow: 'w', dir: '/etc' } } });
    expect(folder).toMatchObject({ ok: false, code: 'invalid-request' });
  });

  it("uses the workflow's default folder, made on first use, or the one chosen; checks a chosen folder", async () => {
    const { services, data } = await app();
    const call = (method: string, request: unknown) => services.dispatcher.handle(method, request, { face: 'http' });
    expect(await call('workspaces.get', { workflow: 'My flow' })).toEqual({
      ok: true,
      value: { workflow: 'My flow', path: path.join(data, 'workspaces', 'My flow'), isDefault: true, exists: false, canPick: false },
    });
    const ran = await call('code.run', { code: WRITE_CODE, packages: [], nodeGrants: { workspace: { workflow: 'My flow' } } });
    expect(ran).toMatchObject({ ok: true, value: { result: { ok: true, value: 1 } } });
    expect(await readFile(path.join(data, 'workspaces', 'My flow', 'a.txt'), 'utf8')).toBe('x');

    expect(await call('workspaces.set', { workflow: 'My flow', path: 'rel/dir' })).toMatchObject({ ok: false, code: 'invalid-data' });
    expect(await call('workspaces.set', { workflow: 'My flow', path: data })).toMatchObject({
      ok: false,
      message: "The app's data directory cannot be a workspace (nodes would reach its packs and settings); choose another folder.",
    });
    expect(await call('workspaces.set', { workflow: 'My flow', path: path.join(data, 'node_modules') })).toMatchObject({ ok: false, code: 'invalid-data' });
    const other = await tempDir('chosen');
    dirs.push(other);
    const chosen = await call('workspaces.set', { workflow: 'My flow', path: other.path });
    expect(chosen).toEqual({ ok: true, value: { workflow: 'My flow', path: await realpath(other.path), isDefault: false, exists: true, canPick: false } });
    await call('code.run', { code: WRITE_CODE, packages: [], nodeGrants: { workspace: { workflow: 'My flow' } } });
    expect(await readFile(path.join(other.path, 'a.txt'), 'utf8')).toBe('x');

    await other.remove();
    const gone = await call('code.run', { code: WRITE_CODE, packages: [], nodeGrants: { workspace: { workflow: 'My flow' } } });
    expect(gone).toMatchObject({ ok: false, code: 'not-found' });
    expect(await call('workspaces.set', { workflow: 'My flow', path: null })).toMatchObject({ ok: true, value: { isDefault: true, exists: true } });
  });

  it('opens the injected folder picker for the desktop window only, and checks what it picked', async () => {
    const other = await tempDir('picked');
    dirs.push(other);
    const titles: string[] = [];
    let answer: string | undefined = other.path;
    const { services } = await app(async (title) => (titles.push(title), answer));
    const call = (method: string, request: unknown, face: 'http' | 'ipc') => services.dispatcher.handle(method, request, { face });
    expect(await call('workspaces.get', { workflow: 'W' }, 'ipc')).toMatchObject({ ok: true, value: { canPick: true } });
    expect(await call('workspaces.get', { workflow: 'W' }, 'http')).toMatchObject({ ok: true, value: { canPick: false } });
    expect(await call('workspaces.pick', { workflow: 'W' }, 'http')).toEqual({
      ok: false,
      code: 'capability-denied',
      message: "Only the desktop app can show the system's folder picker; type the folder's full path instead.",
    });
    expect(titles).toEqual([]);
    expect(await call('workspaces.pick', { workflow: 'W' }, 'ipc')).toEqual({
      ok: true,
      value: { folder: { workflow: 'W', path: await realpath(other.path), isDefault: false, exists: true, canPick: true } },
    });
    expect(titles).toEqual(['Workspace folder for "W"']);
    answer = undefined;
    expect(await call('workspaces.pick', { workflow: 'W' }, 'ipc')).toEqual({ ok: true, value: { folder: null } });
  });

  it("workflows.rename carries the workflow's workspace folder and its files to the new name", async () => {
    const { services, data } = await app();
    const call = (method: string, request: unknown) => services.dispatcher.handle(method, request, { face: 'http' });
    const workflow = { nodes: [] };
    expect(await call('workflows.save', { name: 'Before', workflow })).toMatchObject({ ok: true });
    const ran = await call('code.run', { code: WRITE_CODE, packages: [], nodeGrants: { workspace: { workflow: 'Before' } } });
    expect(ran).toMatchObject({ ok: true, value: { result: { ok: true, value: 1 } } });
    expect(await call('workflows.rename', { from: 'Before', to: 'After' })).toEqual({ ok: true, value: { name: 'After' } });
    expect(await readFile(path.join(data, 'workspaces', 'After', 'a.txt'), 'utf8')).toBe('x');
    expect(await call('workspaces.get', { workflow: 'After' })).toMatchObject({ ok: true, value: { isDefault: true, exists: true } });
  });

  it('a run after a granted one sees neither the secret nor anything that run left behind', async () => {
    const { services } = await app();
    const call = (method: string, request: unknown) => services.dispatcher.handle(method, request, { face: 'http' });
    await call('secrets.set', { name: 'API_TOKEN', value: 'abcdef' });
    const leak = 'const v = await getSecret("API_TOKEN"); globalThis.leaked = v; Object.prototype.leaked = v; return v.length;';
    expect(await call('code.run', { code: leak, packages: [], nodeGrants: { secrets: ['API_TOKEN'] } })).toMatchObject({
      ok: true,
      value: { result: { ok: true, value: 6 } },
    });
    for (let i = 0; i < 4; i++) {
      const after = await call('code.run', { code: 'return [typeof globalThis.leaked, typeof ({}).leaked];', packages: [] });
      expect(after).toMatchObject({ ok: true, value: { result: { ok: true, value: ['undefined', 'undefined'] } } });
    }
    const asked = await call('code.run', { code: 'return await getSecret("API_TOKEN");', packages: [] });
    expect(asked).toMatchObject({ ok: true, value: { result: { ok: false, code: 'capability-denied' } } });
  });
});
