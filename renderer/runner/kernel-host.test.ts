// The browser's kernel host refuses a run after close() as the app's Node pool does: a rejected
// promise with the one named error from shared/sandbox/hosting/kernel-host-closed.ts.
import { describe, expect, it } from 'vitest';
import type { KernelRunRequest } from '../../shared/protocol/run.ts';
import { KernelHostClosedError } from '../../shared/sandbox/hosting/kernel-host-closed.ts';
import { KernelHost } from './kernel-host.ts';
import type { WorkerLike } from './worker-messages.ts';

describe('a closed browser kernel host', () => {
  it('rejects a run with KernelHostClosedError', async () => {
    const worker: WorkerLike = { postMessage: () => {}, terminate: () => {}, onmessage: null, onerror: null };
    const host = new KernelHost({ startWorker: () => worker, engineWasmUrl: 'http://127.0.0.1:9/engine.wasm' });
    host.close();
    const ports = { capability: async () => ({ ok: true as const, value: null }), wasm: async () => ({ ok: true as const, value: null }) };
    const refused = host.run({ code: 'return 1;', timeoutMs: 1_000 } as unknown as KernelRunRequest, ports);
    await expect(refused).rejects.toBeInstanceOf(KernelHostClosedError);
    await expect(refused).rejects.toThrow('the browser kernel host is closed; no run can start on it');
  });
});
