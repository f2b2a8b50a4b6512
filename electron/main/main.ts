// The Electron main process: build the app services for the data directory, open the locked-down
// window, bind the contract to IPC, and release everything on quit. A first start seeds the shipped
// packs behind the open window (electron/first-run/background.ts). All logic lives in the
// services; this file is lifecycle glue only.

import { app, BrowserWindow, dialog, session } from 'electron';
import { defaultDataDir } from '../platform/data-dir.ts';
import { seedDataDirInBackground, type BackgroundSeeding } from '../first-run/index.ts';
import { createAppServices, type AppServices } from '../services/app-services.ts';
import { bindContractToIpc } from './ipc.ts';
import { createSafeStorageSecretStore } from './safe-storage-secrets.ts';
import { createAppWindow, hardenSession } from './window.ts';

// One instance per data directory: a second launch focuses the first window instead.
const primary = app.requestSingleInstanceLock();
if (!primary) app.quit();

let services: AppServices | undefined;
let seeding: BackgroundSeeding | undefined;
let unbind: (() => void) | undefined;

async function start(): Promise<void> {
  hardenSession(session.defaultSession);
  const dataDir = defaultDataDir();
  // Secrets are sealed with the OS keychain (safeStorage), which is ready once the app is.
  const created = await createAppServices({ dataDir, secretStore: createSafeStorageSecretStore(dataDir), pickFolder });
  if (!created.ok) {
    console.error(`Sandbox Packs could not start: ${created.code}: ${created.message}`);
    app.exit(1);
    return;
  }
  services = created.value;
  seeding = await seedDataDirInBackground(dataDir, services, (text, state) => (state === 'failed' ? console.error(text) : console.log(text)));
  const win = await createAppWindow();
  unbind = bindContractToIpc(win, services.dispatcher, services.events);
  win.on('closed', () => {
    unbind?.();
    unbind = undefined;
  });
}

/** The system's folder picker over the app's window (workspaces.pick); the chosen path is checked by the workspace store. */
async function pickFolder(title: string): Promise<string | undefined> {
  const [win] = BrowserWindow.getAllWindows();
  const options: Electron.OpenDialogOptions = { title, properties: ['openDirectory', 'createDirectory'] };
  const picked = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return picked.canceled ? undefined : picked.filePaths[0];
}

app.on('second-instance', () => {
  const [win] = BrowserWindow.getAllWindows();
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
});

app.on('web-contents-created', (_event, contents) => {
  // Belt and braces for any webContents, not only our window: no new windows, no webviews.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

app.on('window-all-closed', () => app.quit());

let disposed = false;
app.on('will-quit', (event) => {
  if (disposed || services === undefined) return;
  event.preventDefault();
  disposed = true;
  seeding?.close();
  unbind?.();
  void services.dispose().finally(() => app.quit());
});

if (primary) {
  app.whenReady().then(start, (error: unknown) => {
    console.error(error);
    app.exit(1);
  });
}
