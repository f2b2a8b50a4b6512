// Entry of the browser kernel worker (a module Web Worker): the shared kernel with browser powers.
// It compiles quickjs-ng once from the WASM URL the page gives it (an asset of the web host),
// with the same bounded linear memory as the Node worker, then runs one invocation at a time;
// capability and WASM calls go to the page, which owns the handlers and the WASM pool.

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { ENGINE_BASE_PAGES, ENGINE_MAX_PAGES } from '../../shared/sandbox/engine.ts';
import { runKernel } from '../../shared/sandbox/kernel.ts';
import type { HostCallResult } from '../../shared/protocol/run.ts';
import { ToKernelWorkerSchema, type FromKernelWorker } from './worker-messages.ts';

/** The worker global as this file uses it (the DOM lib types `self` as a window). */
const scope = self as unknown as { postMessage(message: unknown): void; onmessage: ((event: MessageEvent) => void) | null };
let engine: QuickJSWASMModule | undefined;
const waiting = new Map<number, (result: HostCallResult) => void>();
let nextCallId = 1;

function post(message: FromKernelWorker): void {
  scope.postMessage(message);
}

async function boot(engineWasmUrl: string): Promise<void> {
  try {
    const wasmMemory = new WebAssembly.Memory({ initial: ENGINE_BASE_PAGES, maximum: ENGINE_MAX_PAGES });
    engine = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmLocation: engineWasmUrl, wasmMemory }));
    post({ type: 'ready' });
  } catch (error) {
    post({ type: 'boot-failed', message: error instanceof Error ? error.message : String(error) });
  }
}

scope.onmessage = (event: MessageEvent) => {
  const parsed = ToKernelWorkerSchema.safeParse(event.data);
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === 'init') {
    if (!engine) void boot(message.engineWasmUrl);
    return;
  }
  if (message.type === 'host-result') {
    const resolve = waiting.get(message.callId);
    waiting.delete(message.callId);
    resolve?.(message.result as HostCallResult);
    return;
  }
  if (!engine) return;
  const { runId, request } = message;
  void runKernel(request, {
    engine,
    now: () => performance.now(),
    hostCall: (kind, name, args) =>
      new Promise<HostCallResult>((resolve) => {
        const callId = nextCallId++;
        waiting.set(callId, resolve);
        post({ type: 'host-call', runId, callId, kind, name, args: [...args] });
      }),
  }).then((outcome) => post({ type: 'done', runId, result: outcome.result, healthy: outcome.healthy }));
};
