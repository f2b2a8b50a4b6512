// The whole preload: one hand-listed object on `window.sandboxPacks` with two functions. It passes
// values through untouched — the renderer's client parses responses and events, main's dispatcher
// parses requests — and never hands the page `ipcRenderer`, an event object or any Electron API.
// Built to CommonJS by scripts/build-electron.mjs because sandboxed preloads cannot be ES modules.

import { contextBridge, ipcRenderer } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, PRELOAD_GLOBAL, type PreloadBridge } from '../../shared/contract/ipc-channels.ts';

const bridge: PreloadBridge = {
  invoke: (method, payload) => ipcRenderer.invoke(IPC_INVOKE_CHANNEL, method, payload),
  onEvent(listener) {
    const forward = (_event: Electron.IpcRendererEvent, data: unknown) => listener(data);
    ipcRenderer.on(IPC_EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld(PRELOAD_GLOBAL, bridge);
