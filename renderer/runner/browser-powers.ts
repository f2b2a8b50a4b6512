// The only place the browser runner touches page APIs: how its workers start (module Web Workers
// that Vite emits as their own chunks), how a module is fetched (the web host's delivery route
// with the session token in the Authorization header, never in the URL), and how bytes are hashed
// (crypto.subtle). Everything else is the shared kernel and the runner's pure parts.

import engineWasmUrl from '@jitl/quickjs-ng-wasmfile-release-sync/wasm?url';
import type { DeliveryPart } from '../../shared/protocol/delivery.ts';
import type { BrowserRunnerPowers } from './browser-runner.ts';
import type { FetchedPart } from './module-source.ts';
import type { WorkerLike } from './worker-messages.ts';

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes.slice()));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function fetchPartOver(origin: string, token: string): BrowserRunnerPowers['fetchPart'] {
  return async (deliveryId: string, part: DeliveryPart, digest: string | undefined): Promise<FetchedPart> => {
    const query = new URLSearchParams();
    if (part !== 'source') query.set('part', part);
    if (digest !== undefined) query.set('digest', digest);
    const search = query.size ? `?${query.toString()}` : '';
    const response = await fetch(`${origin}/api/sandbox-modules/${encodeURIComponent(deliveryId)}${search}`, {
      headers: { Authorization: `Bearer ${token}` },
      cache: 'no-store',
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, header: (name) => response.headers.get(name), bytes };
  };
}

export function startKernelWorker(): WorkerLike {
  return new Worker(new URL('./kernel-worker.ts', import.meta.url), { type: 'module', name: 'sandbox-kernel' });
}

export function startWasmWorker(): WorkerLike {
  return new Worker(new URL('./wasm-worker.ts', import.meta.url), { type: 'module', name: 'sandbox-wasm' });
}

/** The runner's powers for a page served by the web host. */
export function pagePowers(origin: string, token: string): BrowserRunnerPowers {
  return { startKernelWorker, startWasmWorker, engineWasmUrl, fetchPart: fetchPartOver(origin, token), sha256: sha256Hex };
}
