// The text rules behind the editor's import completions: which part of an import the cursor is in.
import { describe, expect, it } from 'vitest';
import { importContext, wasmSignatureText } from './import-context.ts';

describe('importContext', () => {
  it('finds the partial specifier after from, and after a bare import', () => {
    const before = 'const x = 1;\nimport { a } from "@acme/ge';
    expect(importContext(before, '";\nreturn a;')).toEqual({ kind: 'specifier', from: before.length - '@acme/ge'.length, typed: '@acme/ge' });
    expect(importContext("import '", "';")).toEqual({ kind: 'specifier', from: 8, typed: '' });
  });

  it('finds the partial export name between braces, the module named after them, and the names already listed', () => {
    const before = 'import { haversine, ad';
    expect(importContext(before, ' } from "@acme/geo/simplify-wasm";')).toEqual({
      kind: 'export',
      from: before.length - 2,
      typed: 'ad',
      specifier: '@acme/geo/simplify-wasm',
      already: ['haversine'],
    });
    expect(importContext('import { ', ', scale } from "x";')).toEqual({ kind: 'export', from: 9, typed: '', specifier: 'x', already: ['scale'] });
  });

  it('offers nothing outside an import, after "as", or before a specifier is written', () => {
    expect(importContext('return "abc', '"')).toBeUndefined();
    expect(importContext('import { add as pl', ' } from "x";')).toBeUndefined();
    expect(importContext('import { ad', ' } from ')).toBeUndefined();
  });
});

describe('wasmSignatureText', () => {
  it('writes a WASM export as name(params) → result (async), a void one returning nothing', () => {
    expect(wasmSignatureText({ as: 'distance', params: ['f64', 'f64', 'f64', 'f64'], results: ['f64'] })).toBe('distance(f64, f64, f64, f64) → f64 (async)');
    expect(wasmSignatureText({ as: 'tick', params: [], results: [] })).toBe('tick() → nothing (async)');
  });
});
