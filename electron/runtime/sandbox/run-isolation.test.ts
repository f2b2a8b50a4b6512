// No run can observe a byte another run left behind. Through the real pool with one worker (so
// both runs land on the same thread): run A holds a secret in its inputs and spreads it over the
// engine's heap; run B asks every guest primitive that hands out fresh memory for its bytes. With
// one engine reused across runs, a growable SharedArrayBuffer handed run B run A's secret byte for
// byte (quickjs-ng does not zero its growth); each sandbox's engine memory is now restored to its
// snapshot from before any run (shared/sandbox/supply/sandbox-supply.ts).
// Also: many runs through one worker keep its memory bounded (each discarded engine is collected),
// and each run has a time origin of its own (a restored image kept its context's creation time).
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { isolationSecret, mayBeDirty, PLANT_CODE, SCAN_CODE, scanInputs, type ScanEntry } from '../../../shared/testing/isolation-probe.ts';
import { SandboxPool } from './sandbox-pool.ts';

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

function request(code: string, inputs: Record<string, unknown>): KernelRunRequest {
  return { code, entries: {}, modules: {}, inputs, grants: NO_GRANTS, timeoutMs: 30_000 };
}

describe('run isolation in the Node sandbox pool', () => {
  it('gives run B no byte of the secret run A held, from any primitive that hands out fresh memory', async () => {
    const secret = isolationSecret();
    const planted = await pool.run(request(PLANT_CODE, { apiKey: secret }));
    expect(planted).toMatchObject({ ok: true, value: 509 });
    const scanned = await pool.run(request(SCAN_CODE, scanInputs(secret)));
    expect(scanned).toMatchObject({ ok: true });
    if (!scanned.ok) return;
    const entries = Object.entries(scanned.value as Record<string, ScanEntry>);
    expect(entries.length).toBeGreaterThanOrEqual(29);
    const expected = Object.fromEntries(entries.map(([name]) => [name, { secret: false, dirty: mayBeDirty(name) ? expect.any(Boolean) : false }]));
    expect(Object.fromEntries(entries)).toEqual(expected);
    expect(pool.started).toBe(1);
  }, 120_000);

  it('gives each run its own time origin: performance counts from the run, never from the sandbox', async () => {
    const clocks = request('return [performance.timeOrigin, performance.now(), Date.now()];', {});
    const seen: { origin: number; now: number; date: number; wallMs: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await pool.run(clocks);
      if (!result.ok) throw new Error(result.message);
      const [origin, now, date] = result.value as [number, number, number];
      seen.push({ origin, now, date, wallMs: result.receipt.wallMs });
      await new Promise((done) => setTimeout(done, 20));
    }
    for (const run of seen) {
      // now() is the time since this run began, never more than the run took …
      expect(run.now).toBeGreaterThanOrEqual(0);
      expect(run.now).toBeLessThanOrEqual(run.wallMs);
      // … and timeOrigin is when it began, on the guest's own wall clock.
      expect(Math.abs(run.date - run.now - run.origin)).toBeLessThanOrEqual(run.wallMs + 2);
    }
    // Three runs on the one worker, 20 ms apart: three origins.
    expect(new Set(seen.map((run) => run.origin)).size).toBe(3);
    expect(pool.started).toBe(1);
  });

  it("keeps the worker's memory bounded over 200 runs, each on its own engine", async () => {
    const probe = request('const keep = new Uint8Array(8 << 20); keep[0] = 1; return keep.length;', {});
    expect(await pool.run(probe)).toMatchObject({ ok: true, value: 8 << 20 });
    const rssBefore = process.memoryUsage().rss;
    for (let i = 0; i < 200; i++) {
      const result = await pool.run(probe);
      expect(result).toMatchObject({ ok: true, value: 8 << 20 });
    }
    // The pool never replaced its worker: 200 engines of 24 MB each came and went inside it.
    expect(pool.started).toBe(1);
    expect(pool.workerCount).toBe(1);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
  }, 180_000);
});
