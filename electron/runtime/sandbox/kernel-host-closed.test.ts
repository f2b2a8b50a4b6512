// The app's Node sandbox pool refuses a run after close() as the browser's kernel host does
// (renderer/runner/kernel-host.test.ts): a rejected promise with the one named error.
import { describe, expect, it } from 'vitest';
import type { KernelRunRequest } from '../../../shared/protocol/run.ts';
import { KernelHostClosedError } from '../../../shared/sandbox/hosting/kernel-host-closed.ts';
import { SandboxPool } from './sandbox-pool.ts';

const request = { code: 'return 1;', timeoutMs: 1_000 } as unknown as KernelRunRequest;

describe('a closed kernel host', () => {
  it('the Node sandbox pool rejects a run with KernelHostClosedError', async () => {
    const pool = new SandboxPool({ size: 1 });
    await pool.close();
    const refused = pool.run(request);
    await expect(refused).rejects.toBeInstanceOf(KernelHostClosedError);
    await expect(refused).rejects.toThrow('the sandbox pool is closed; no run can start on it');
  });
});
