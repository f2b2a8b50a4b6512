// Picks the transport for the page it runs in: inside the Electron window the preload object is
// there; in a browser served by the web host, the token came in the URL fragment at launch. The
// fragment is moved to sessionStorage and removed from the address bar, so it is not bookmarked,
// shared in a screenshot, or sent anywhere (fragments never reach a server).

import type { ContractClient } from '../../shared/contract/client.ts';
import { PRELOAD_GLOBAL, type PreloadBridge } from '../../shared/contract/ipc-channels.ts';
import { createHttpClient } from './http-client.ts';
import { createPreloadClient } from './preload-client.ts';

export const TOKEN_KEY = 'sandbox-packs-token';

function isBridge(value: unknown): value is PreloadBridge {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PreloadBridge).invoke === 'function' &&
    typeof (value as PreloadBridge).onEvent === 'function'
  );
}

export type Connection = { ok: true; client: ContractClient; face: 'ipc' | 'http' } | { ok: false; message: string };

export function connect(win: Window): Connection {
  const bridge: unknown = (win as unknown as Record<string, unknown>)[PRELOAD_GLOBAL];
  if (isBridge(bridge)) return { ok: true, client: createPreloadClient(bridge), face: 'ipc' };
  const fromHash = /(?:^#|&)token=([A-Za-z0-9_-]{1,256})(?:&|$)/.exec(win.location.hash)?.[1];
  if (fromHash !== undefined) {
    win.sessionStorage.setItem(TOKEN_KEY, fromHash);
    win.history.replaceState(null, '', win.location.pathname + win.location.search);
  }
  const token = fromHash ?? win.sessionStorage.getItem(TOKEN_KEY);
  if (token === null) return { ok: false, message: "This tab has no access token, so it cannot reach the app's data." };
  return { ok: true, client: createHttpClient(win.location.origin, token), face: 'http' };
}
