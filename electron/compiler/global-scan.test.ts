import { describe, expect, it } from 'vitest';
import { scanForbiddenGlobals } from './global-scan.ts';

const kinds = (source: string) => {
  const scan = scanForbiddenGlobals(source);
  if (!scan.ok) throw new Error(scan.message);
  return scan.hits.map((h) => `${h.name}:${h.kind}`);
};

describe('scanForbiddenGlobals', () => {
  it('calls a top-level use hard, including inside an immediately-invoked function', () => {
    expect(kinds('Buffer.from("x");')).toEqual(['Buffer:hard']);
    expect(kinds('(function () { process.env.X; })();')).toEqual(['process:hard']);
    expect(kinds('(() => setTimeout(f, 1))();')).toEqual(['setTimeout:hard']);
    expect(kinds('class A { static { window.x = 1; } }')).toEqual(['window:hard']);
  });

  it('calls feature-detected uses guarded', () => {
    expect(kinds('if (typeof Buffer !== "undefined") Buffer.from("x");')).toEqual(['Buffer:guarded', 'Buffer:guarded']);
    expect(kinds('const t = typeof setTimeout === "function" ? setTimeout : null;')).toEqual(['setTimeout:guarded', 'setTimeout:guarded']);
    expect(kinds('const ok = typeof document !== "undefined" && document.title;')).toEqual(['document:guarded', 'document:guarded']);
    expect(kinds('try { navigator.userAgent; } catch {}')).toEqual(['navigator:guarded']);
  });

  it('does not count a test of one name as a guard for another', () => {
    expect(kinds('if (typeof window !== "undefined") Buffer.from("x");')).toEqual(['window:guarded', 'Buffer:hard']);
  });

  it('calls uses inside functions that the module does not call deferred', () => {
    expect(kinds('export function later() { return new Worker("x"); }')).toEqual(['Worker:deferred']);
    expect(kinds('const o = { m() { eval("1"); } };')).toEqual(['eval:deferred']);
  });

  it('ignores bound names: locals, parameters, imports, catch bindings, hoisted functions', () => {
    expect(kinds('const process = {}; process.env;')).toEqual([]);
    expect(kinds('function f(Buffer) { return Buffer; } f(1);')).toEqual([]);
    expect(kinds('try { x(); } catch (window) { window.y; }')).toEqual([]);
    expect(kinds('document(); function document() {}')).toEqual([]);
    expect(kinds('import { setTimeout } from "./timers.js"; setTimeout();')).toEqual([]);
  });

  it('ignores property names and member accesses that are not free references', () => {
    expect(kinds('const o = { process: 1, Buffer: 2 }; o.process; globalThis.window;')).toEqual([]);
  });

  it('reports a parse failure instead of throwing', () => {
    expect(scanForbiddenGlobals('let = ;').ok).toBe(false);
  });
});
