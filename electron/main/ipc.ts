// Binds the contract to Electron IPC: one invoke channel into the shared dispatcher, one event
// channel out. Every message's sender frame is checked first — it must be the main frame of our
// window showing our own page — so an iframe, a navigated page or another webContents gets
// `forbidden` and never reaches a handler.

import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { Dispatcher } from '../../shared/contract/dispatcher.ts';
import type { EventHub, Unsubscribe } from '../../shared/contract/events.ts';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../shared/contract/ipc-channels.ts';
import { fail } from '../../shared/protocol/result.ts';
import { isAppPageUrl } from './app-paths.ts';

function trustedSender(event: IpcMainInvokeEvent, win: BrowserWindow): boolean {
  const frame = event.senderFrame;
  if (frame === null || win.isDestroyed()) return false;
  return event.sender === win.webContents && frame === win.webContents.mainFrame && isAppPageUrl(frame.url);
}

/** Returns a function that removes the handler and the event forwarding. */
export function bindContractToIpc(win: BrowserWindow, dispatcher: Dispatcher, events: EventHub): Unsubscribe {
  ipcMain.handle(IPC_INVOKE_CHANNEL, async (event, method: unknown, payload: unknown) => {
    if (!trustedSender(event, win)) return fail('forbidden', "This window is not allowed to call the app's services.");
    return dispatcher.handle(method, payload, { face: 'ipc' });
  });
  const unsubscribe = events.subscribe((event) => {
    if (!win.isDestroyed() && isAppPageUrl(win.webContents.getURL())) win.webContents.send(IPC_EVENT_CHANNEL, event);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(IPC_INVOKE_CHANNEL);
  };
}
