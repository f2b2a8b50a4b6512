// Entry of the browser kernel worker (a module Web Worker): the shared kernel with browser powers.
// It compiles quickjs-ng once from the WASM URL the page gives it (an asset of the web host), then
// runs one invocation at a time, each in a sandbox (engine instance, runtime, hardened context) with
// the same bounded linear memory as the Node worker, in the state no run has touched: restored to
// its image from before any run after each run (shared/sandbox/sandbox-supply.ts). Capability and WASM calls go to the
// page, which owns the handlers and the WASM pool.

import { compileQuickJsNg } from '../../shared/sandbox/engine.ts';
import { SandboxSupply, type SuppliedSandbox } from '../../shared/sandbox/sandbox-supply.ts';
import { runNeedsWasm, runPrepared } from '../../shared/sandbox/kernel.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/system-clock.ts';
import { emptyReceipt, type HostCallResult, type KernelRunRequest } from '../../shared/protocol/run.ts';
import { parseToKernelWorker, ToKernelWorkerSchema, type FromKernelWorker } from '../../shared/sandbox/kernel-worker-messages.ts';
import { KeptSources } from '../../shared/sandbox/source-cache.ts';

/** The worker global as this file uses it (the DOM lib types `self` as a window). */
const scope = self as unknown as { postMessage(message: unknown): void; onmessage: ((event: MessageEvent) => void) | null };
let engines: SandboxSupply | undefined;
/** Module sources this worker keeps, so runs need not carry them again (source-cache.ts). */
const kept = new KeptSources();
let ready = false;
/** Host calls waiting for the page's answer, by call id, with the run that made them (see sandbox-worker.ts). */
const waiting = new Map<number, { readonly runId: number; readonly resolve: (result: HostCallResult) => void }>();
let nextCallId = 1;

/** Hand a waiting call its answer (the call must be the run's own). */
function answerCall(runId: number, callId: number, result: HostCallResult): void {
  const call = waiting.get(callId);
  if (!call || call.runId !== runId) return;
  waiting.delete(callId);
  call.resolve(result);
}

/** Post to the page. A message that cannot be cloned becomes a tagged failure at once, never silence. */
function post(message: FromKernelWorker): void {
  try {
    scope.postMessage(message);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (message.type === 'done') {
      const { logs, receipt } = message.result;
      scope.postMessage({
        ...message,
        result: { ok: false, code: 'result-invalid', message: `The code's result could not be passed out of the sandbox (${why}).`, logs, receipt },
      } satisfies FromKernelWorker);
    } else if (message.type === 'host-call') {
      answerCall(message.runId, message.callId, {
        ok: false,
        code: 'invalid-data',
        message: `The arguments of ${message.name} could not be passed to the page (${why}).`,
      });
    } else throw error;
  }
}

async function compileFrom(url: string): Promise<WebAssembly.Module> {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return compileQuickJsNg(await response.arrayBuffer());
}

async function boot(engineWasmUrl: string): Promise<void> {
  const supply = new SandboxSupply(() => compileFrom(engineWasmUrl));
  engines = supply;
  try {
    await supply.prepare();
    ready = true;
    post({ type: 'ready' });
  } catch (error) {
    post({ type: 'boot-failed', message: error instanceof Error ? error.message : String(error) });
  }
}

async function runOnce(supply: SandboxSupply, runId: number, request: KernelRunRequest): Promise<void> {
  let supplied: SuppliedSandbox;
  try {
    supplied = await supply.take(runNeedsWasm(request), request);
  } catch (error) {
    const message = `The sandbox engine could not start: ${error instanceof Error ? error.message : String(error)}`;
    // Unhealthy: the page replaces this worker, whose next engine may fail the same way.
    post({ type: 'done', runId, result: { ok: false, code: 'sandbox-crashed', message, logs: [], receipt: emptyReceipt() }, healthy: false });
    return;
  }
  const outcome = await runPrepared(supplied.sandbox, request, {
    ...SYSTEM_CLOCK,
    // Streamed as kept: if the page's watchdog must terminate this worker, the page has the logs so far.
    onLog: (entry) => post({ type: 'log', runId, entry }),
    hostCall: (kind, name, args) =>
      new Promise<HostCallResult>((resolve) => {
        const callId = nextCallId++;
        waiting.set(callId, { runId, resolve });
        post({ type: 'host-call', runId, callId, kind, name, args: [...args] });
      }),
  });
  for (const [callId, call] of waiting) if (call.runId === runId) waiting.delete(callId);
  // Once the answer is on its way, the sandbox goes back to its image from before any run, or,
  // if its run left it unfit (`outcome.healthy` false, a grown memory), is freed and replaced
  // (shared/sandbox/sandbox-supply.ts). The thread itself is sound either way, so it is not replaced for that.
  post({ type: 'done', runId, result: outcome.result, healthy: true });
  supply.retire(supplied);
}

scope.onmessage = (event: MessageEvent) => {
  const message = parseToKernelWorker(ToKernelWorkerSchema, event.data);
  if (!message) return;
  if (message.type === 'init') {
    if (!engines) void boot(message.engineWasmUrl);
    return;
  }
  if (message.type === 'host-result') return answerCall(message.runId, message.callId, message.result as HostCallResult);
  if (!engines || !ready) return;
  if (!kept.fill(message.request, message.sources)) return post({ type: 'resend', runId: message.runId });
  void runOnce(engines, message.runId, message.request);
};
