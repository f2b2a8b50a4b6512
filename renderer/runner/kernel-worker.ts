// Entry of the browser kernel worker (a module Web Worker): the shared worker loop
// (shared/sandbox/hosting/kernel-worker-loop.ts) wired to the worker global. It compiles quickjs-ng once
// from the WASM URL the page gives it in `init` (an asset of the web host); capability and WASM
// calls go to the page, which owns the handlers and the WASM pool. Runs are never held or nested
// here: the page's host is first-in-first-out.

import '../zod-jitless.ts';
import { compileQuickJsNg } from '../../shared/sandbox/supply/engine.ts';
import { KernelWorkerLoop, type KernelRunMessage } from '../../shared/sandbox/hosting/kernel-worker-loop.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/kernel/system-clock.ts';
import { parseToKernelWorker, ToKernelWorkerSchema } from '../../shared/sandbox/hosting/kernel-worker-messages.ts';

/** The worker global as this file uses it (the DOM lib types `self` as a window). */
const scope = self as unknown as { postMessage(message: unknown): void; onmessage: ((event: MessageEvent) => void) | null };

const loop = new KernelWorkerLoop<KernelRunMessage>({
  post: (message) => scope.postMessage(message),
  peer: 'page',
  clock: () => SYSTEM_CLOCK,
});

async function compileFrom(url: string): Promise<WebAssembly.Module> {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return compileQuickJsNg(await response.arrayBuffer());
}

scope.onmessage = (event: MessageEvent) => {
  const message = parseToKernelWorker(ToKernelWorkerSchema, event.data);
  if (message?.type !== 'init') return loop.receive(message);
  if (loop.booted) return;
  // The page counts a worker whose engine cannot load as a failed start.
  loop
    .boot(() => compileFrom(message.engineWasmUrl))
    .catch((error: unknown) => {
      scope.postMessage({ type: 'boot-failed', message: error instanceof Error ? error.message : String(error) });
    });
};
