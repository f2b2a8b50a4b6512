// The engine as the workers make it (the registered binary, compiled once, instantiated by
// shared/sandbox/supply/engine.ts) and as the tests make it (shared/testing/quickjs-engine.ts): a
// string read out of the guest is the guest's string, a leading U+FEFF included, which the
// emscripten glue's own decoder would strip.

import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { describe, expect, it } from 'vitest';
import { ENGINE_FULL_MESSAGE, instantiateQuickJsNg } from '../../../shared/sandbox/supply/engine.ts';
import { newBoundedQuickJsNg } from '../../../shared/testing/quickjs-engine.ts';
import { compileEngineWasm } from './engine-wasm.ts';

/** The guest's value of `source`, read back by getString and by dump. */
function readBack(engine: QuickJSWASMModule, source: string): [string, unknown] {
  const ctx = engine.newContext();
  try {
    const handle = ctx.unwrapResult(ctx.evalCode(source));
    try {
      return [ctx.getString(handle), ctx.dump(handle)];
    } finally {
      handle.dispose();
    }
  } finally {
    ctx.dispose();
  }
}

describe('strings read out of the guest', () => {
  const engines: [string, () => Promise<QuickJSWASMModule>][] = [
    ['the workers’ engine', async () => (await instantiateQuickJsNg(await compileEngineWasm())).engine],
    ['the tests’ engine', async () => (await newBoundedQuickJsNg()).engine],
  ];
  for (const [name, make] of engines) {
    it(`keep a leading U+FEFF and decode the rest as before (${name})`, async () => {
      const engine = await make();
      expect(readBack(engine, '"\\uFEFFab"')).toEqual(['\uFEFFab', '\uFEFFab']);
      expect(readBack(engine, '"\\uFEFF\\uFEFF"')).toEqual(['\uFEFF\uFEFF', '\uFEFF\uFEFF']);
      expect(readBack(engine, '"h\\u00e9llo \\u{1F600}"')).toEqual(['héllo 😀', 'héllo 😀']);
      expect(readBack(engine, '""')).toEqual(['', '']);
      // Read after the engine's memory grew past its initial 16 MB (the glue's views are replaced).
      const [long] = readBack(engine, 'globalThis.pad = "y".repeat(20_000_000); "\\uFEFF" + "x".repeat(1_000_000)');
      expect([long.length, long.charCodeAt(0), long.charCodeAt(1_000_000)]).toEqual([1_000_001, 0xfeff, 0x78]);
    });
  }
});

describe('values the host hands a full engine', () => {
  const engines: [string, () => Promise<{ engine: QuickJSWASMModule; memory: WebAssembly.Memory }>][] = [
    ['the workers’ engine', async () => instantiateQuickJsNg(await compileEngineWasm())],
    ['the tests’ engine', () => newBoundedQuickJsNg()],
  ];
  for (const [name, make] of engines) {
    it(`are refused with a RangeError, never written over the engine's memory from address 0 (${name})`, async () => {
      const { engine, memory } = await make();
      const ctx = engine.newContext();
      try {
        ctx.unwrapResult(ctx.evalCode('globalThis.keep = []; try { for (;;) keep.push(new Uint8Array(1 << 20)); } catch {} keep.length')).dispose();
        const low = new Uint8Array(memory.buffer, 0, 4096).slice();
        const bytes = new Uint8Array(8 << 20).fill(0xab);
        expect(() => ctx.newArrayBuffer(bytes.buffer)).toThrow(new RangeError(ENGINE_FULL_MESSAGE));
        expect(() => ctx.newString('x'.repeat(8 << 20))).toThrow(new RangeError(ENGINE_FULL_MESSAGE));
        expect(new Uint8Array(memory.buffer, 0, 4096)).toEqual(low);
        // The engine goes on: the guest frees, and the same value then fits.
        ctx.unwrapResult(ctx.evalCode('keep.length = 0;')).dispose();
        const handle = ctx.newArrayBuffer(new Uint8Array(16).fill(7).buffer);
        expect(ctx.typeof(handle)).toBe('object');
        handle.dispose();
      } finally {
        ctx.dispose();
      }
    }, 30_000);
  }
});
