// The browser kernel worker's protocol carries the same closed code set as the Node worker's:
// a reply or a host result with a code outside it is refused, not passed on to the page.

import { describe, expect, it } from 'vitest';
import { FromKernelWorkerSchema, ToKernelWorkerSchema } from './worker-messages.ts';

const receipt = { wallMs: 1, modules: [], calls: [], denied: [] };

describe('browser kernel worker messages', () => {
  it('an unknown code in a run result, a receipt or a host result is a parse failure', () => {
    const done = (code: string) => ({ type: 'done', runId: 1, healthy: true, result: { ok: false, code, message: 'm', logs: [], receipt } });
    const denial = (code: string) => ({
      type: 'done',
      runId: 1,
      healthy: true,
      result: { ok: true, value: 1, logs: [], receipt: { ...receipt, denied: [{ kind: 'import', request: 'x', from: 'y', code, reason: 'r' }] } },
    });
    const call = (code: string) => ({
      type: 'done',
      runId: 1,
      healthy: true,
      result: { ok: true, value: 1, logs: [], receipt: { ...receipt, calls: [{ kind: 'wasm', name: 'f', ok: false, code }] } },
    });
    for (const make of [done, denial, call]) {
      expect(FromKernelWorkerSchema.safeParse(make('timeout')).success).toBe(true);
      expect(FromKernelWorkerSchema.safeParse(make('made-up-code')).success).toBe(false);
    }
    const hostResult = (code: string) => ({ type: 'host-result', runId: 1, callId: 2, result: { ok: false, code, message: 'm' } });
    expect(ToKernelWorkerSchema.safeParse(hostResult('wasm-trap')).success).toBe(true);
    expect(ToKernelWorkerSchema.safeParse(hostResult('made-up-code')).success).toBe(false);
  });
});
