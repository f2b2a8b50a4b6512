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

  it('judges require like any other name: a UMD or typeof test is guarded, a use inside an uncalled function deferred, a call at import time hard', () => {
    const umd =
      '(function (root, f) { if (typeof require === "function" && typeof module === "object") module.exports = f(require("x")); else root.lib = f(); })(this, function () { return 1; });';
    expect(kinds(umd)).toEqual(['require:guarded', 'module:guarded', 'module:guarded', 'require:guarded']);
    expect(kinds('var req = typeof require !== "undefined" ? require : null;')).toEqual(['require:guarded', 'require:guarded']);
    expect(kinds('export function load(name) { return require(name); }')).toEqual(['require:deferred']);
    expect(kinds('const fs = require("fs");')).toEqual(['require:hard']);
  });

  it("leaves esbuild's __require shim to the probe: every require in it is feature-tested", () => {
    const shim =
      'var __require = ((x) => typeof require !== "undefined" ? require : typeof Proxy !== "undefined" ? new Proxy(x, { get: (a, b) => (typeof require !== "undefined" ? require : a)[b] }) : x)(function(x) { if (typeof require !== "undefined") return require.apply(this, arguments); throw Error(\'Dynamic require of "\' + x + \'" is not supported\'); });\nexport const t = __require(globalThis.x);';
    expect(kinds(shim).every((k) => k === 'require:guarded')).toBe(true);
    expect(kinds(shim)).toHaveLength(6);
  });

  it('counts only uses of Function that can compile code; the exact global-object idiom is none', () => {
    expect(kinds('var root = Function("return this")();')).toEqual([]);
    expect(kinds("var root = new Function('return this')();")).toEqual([]);
    expect(kinds('var root = Function(`return this`)();')).toEqual([]);
    expect(kinds('var toSource = Function.prototype.toString; export const isFn = (x) => x instanceof Function;')).toEqual([]);
    expect(kinds('var g = Function("return this;")();')).toEqual(['Function:hard']);
    expect(kinds('var g = Function("return " + "this")();')).toEqual(['Function:hard']);
    expect(kinds('var add = new Function("a", "b", "return a + b");')).toEqual(['Function:hard']);
    expect(kinds('var g = Function.call(null, "return 1");')).toEqual(['Function:hard']);
    expect(kinds('var F = Function; F("return 1");')).toEqual(['Function:hard']);
    expect(kinds('var p = Function["prototype"];')).toEqual(['Function:hard']);
    expect(kinds('export function compile(body) { return new Function("d", body); }')).toEqual(['Function:deferred']);
  });

  it('knows Intl is missing: an unguarded use at import is hard, a feature test guarded', () => {
    expect(kinds('export const seg = new Intl.Segmenter();')).toEqual(['Intl:hard']);
    expect(kinds('export const fmt = typeof Intl !== "undefined" ? new Intl.NumberFormat() : null;')).toEqual(['Intl:guarded', 'Intl:guarded']);
    expect(kinds('export const d = (x) => new Intl.DateTimeFormat().format(x);')).toEqual(['Intl:deferred']);
  });

  it('reports a parse failure instead of throwing', () => {
    expect(scanForbiddenGlobals('let = ;').ok).toBe(false);
  });
});
