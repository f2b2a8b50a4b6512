// Where the app keeps its data: the managed install root, workflows, caches. One function, used
// by the Electron main process, the web host and the CLI, so all three see the same packs.

import os from 'node:os';
import path from 'node:path';

export const APP_DIR_NAME = 'sandbox-packs';

/** The data directory: `SANDBOX_PACKS_ROOT` if set, else the platform's per-user data folder. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env.SANDBOX_PACKS_ROOT;
  if (override && override.trim() !== '') return path.resolve(override);
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), APP_DIR_NAME);
}
