// Nothing the web-standard globals hold (guest-web.ts) outlives a run. Through the real pool with
// one worker, so every run lands on the same thread and its restored sandbox: run A compiles every
// part, leaves a TextDecoder mid-sequence, a URL and URLSearchParams pair, patches a prototype,
// replaces a global and draws random values; run B finds each global back at its lazy first-use
// state, a fresh decoder with no bytes pending, no trace of A's objects or patches, and random
// values and UUIDs of its own (no pool of bytes kept in the image).
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { SandboxPool } from './sandbox-pool.ts';

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

const request = (code: string): KernelRunRequest => ({ code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 30_000 });

const NAMES = '["TextEncoder", "TextDecoder", "atob", "btoa", "URL", "URLSearchParams", "structuredClone", "crypto"]';

const RUN_A = String.raw`
const d = new TextDecoder(); const pending = d.decode(new Uint8Array([0x61, 0xe2, 0x82]), { stream: true });
const u = new URL("https://h.test/?a=1"); u.searchParams.append("kept", "A");
globalThis.keptDecoder = d; globalThis.keptParams = u.searchParams;
TextDecoder.prototype.decode = () => "patched by A";
URLSearchParams.prototype.kept = "A";
structuredClone(new Map([[1, 2]])); atob(btoa("x"));
const bytes = Array.from(crypto.getRandomValues(new Uint8Array(32))), uuid = crypto.randomUUID();
globalThis.btoa = () => "replaced by A";
return { pending, bytes, uuid, untouched: ${NAMES}.filter((n) => typeof Object.getOwnPropertyDescriptor(globalThis, n).get === "function") };`;

const RUN_B = String.raw`
const lazy = ${NAMES}.filter((n) => typeof Object.getOwnPropertyDescriptor(globalThis, n).get === "function");
const bytes = Array.from(crypto.getRandomValues(new Uint8Array(32)));
return { lazy, bytes, uuid: crypto.randomUUID(), kept: [typeof keptDecoder, typeof keptParams, "kept" in URLSearchParams.prototype],
  decoded: escape(new TextDecoder().decode(new Uint8Array([0xac]))), btoa: btoa("x"), params: new URL("https://h.test/?a=1").searchParams.toString() };`;

describe('web globals across runs on one sandbox worker', () => {
  it('leave nothing of one run (compiled parts, decoder state, patches, random bytes) to the next', async () => {
    const a = await pool.run(request(RUN_A));
    if (!a.ok) throw new Error(a.message);
    const first = a.value as { pending: string; bytes: number[]; uuid: string; untouched: string[] };
    expect(first.pending).toBe('a');
    expect(first.untouched).toEqual(['TextEncoder']);
    const seen = new Set<string>([JSON.stringify(first.bytes)]);
    const uuids = new Set<string>([first.uuid]);
    for (let i = 0; i < 3; i++) {
      const b = await pool.run(request(RUN_B));
      if (!b.ok) throw new Error(b.message);
      const next = b.value as { lazy: string[]; bytes: number[]; uuid: string; kept: unknown[]; decoded: string; btoa: string; params: string };
      expect(next).toMatchObject({
        lazy: ['TextEncoder', 'TextDecoder', 'atob', 'btoa', 'URL', 'URLSearchParams', 'structuredClone', 'crypto'],
        kept: ['undefined', 'undefined', false],
        decoded: '%uFFFD',
        btoa: 'eA==',
        params: 'a=1',
      });
      seen.add(JSON.stringify(next.bytes));
      uuids.add(next.uuid);
    }
    expect(seen.size).toBe(4);
    expect(uuids.size).toBe(4);
    expect(pool.started).toBe(1);
  }, 120_000);
});
