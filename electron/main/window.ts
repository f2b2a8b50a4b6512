// The app window, locked down: isolated and sandboxed renderer without Node, our own page only
// (navigation, new windows, webviews and permission requests refused), and a strict CSP on every
// response as well as the page's own meta tag. No remote content is ever loaded.

import { BrowserWindow, shell, type Session } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../server/static-files.ts';
import { PRELOAD_BUNDLE, RENDERER_INDEX, isAppPageUrl } from './app-paths.ts';

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  // Only our own files: nothing is fetched from the network by the window.
  session.webRequest.onBeforeRequest((details, callback) => {
    const allowed = details.url.startsWith('file://') || details.url.startsWith('devtools://');
    callback({ cancel: !allowed });
  });
}

export async function createAppWindow(): Promise<BrowserWindow> {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    show: false,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      preload: PRELOAD_BUNDLE,
    },
  });
  const contents = win.webContents;
  contents.on('will-navigate', (event, url) => {
    if (!isAppPageUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // Links to documentation open in the user's browser, never inside the app.
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  await win.loadFile(RENDERER_INDEX);
  return win;
}
