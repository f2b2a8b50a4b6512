// The preload as Electron loads it (the CommonJS bundle from scripts/build-electron.mjs): it may
// require nothing but "electron", exposes exactly one object, and uses only the two contract
// channels. The Electron binary is not available here, so this checks the artifact itself.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, PRELOAD_GLOBAL } from '../../shared/contract/ipc-channels.ts';
import { REPO_ROOT } from '../testing/test-support.ts';

describe('preload bundle', () => {
  it('requires only electron, exposes one object, and speaks only the contract channels', () => {
    const built = spawnSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    const source = readFileSync(path.join(REPO_ROOT, 'out/electron/preload.cjs'), 'utf8');
    expect([...source.matchAll(/require\((["'][^"']+["'])\)/g)].map((m) => m[1])).toEqual(['"electron"']);
    expect([...source.matchAll(/exposeInMainWorld\(/g)]).toHaveLength(1);
    expect(source).toContain(`"${PRELOAD_GLOBAL}"`);
    const channels = new Set([...source.matchAll(/"(sandbox-packs:[a-z-]+)"/g)].map((m) => m[1]));
    expect([...channels].sort()).toEqual([IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL].sort());
    // Nothing but invoke/on/removeListener on ipcRenderer: no send, sendSync, or handing it out.
    expect([...source.matchAll(/ipcRenderer\.(\w+)/g)].map((m) => m[1]).sort()).toEqual(['invoke', 'on', 'removeListener']);
  });
});
