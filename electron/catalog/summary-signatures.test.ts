// The module summary carries a ready WASM module's export signatures (from the validated binary)
// so the editor can show `scale(f64, f64) → f64 (async)` in a completion: read from the real
// discovery of the @acme/geo fixture, kept through the contract's catalog.summaries schema, and
// absent for JS modules. The schema refuses a type the bridge cannot carry.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ModuleSummarySchema } from '../../shared/contract/schemas.ts';
import { openCatalog } from './catalog.ts';

const good = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/discovery/good');

describe('WASM signatures in the module summary', () => {
  it('lists each export of a ready WASM module with its scalar params and result, under its guest name', async () => {
    const catalog = await openCatalog({ root: good });
    if (!catalog.ok) throw new Error(catalog.message);
    const rows = catalog.value.summaries();
    const wasm = rows.find((m) => m.specifier === '@acme/geo/simplify-wasm');
    expect(wasm?.signatures).toEqual([
      { as: 'add', params: ['i32', 'i32'], results: ['i32'] },
      { as: 'scale', params: ['f64', 'f64'], results: ['f64'] },
    ]);
    expect(rows.find((m) => m.specifier === '@acme/geo')?.signatures).toBeUndefined();
    // What crosses to the UI: the contract's schema keeps them as they are.
    expect(ModuleSummarySchema.parse(wasm).signatures).toEqual(wasm?.signatures);
  });

  it('refuses a signature with a type the WASM bridge does not carry', () => {
    const row = { specifier: '@x/y', packName: '@x/y', packVersion: '1.0.0', kind: 'wasm', status: 'ready', summary: '@x/y', hasSkill: false };
    expect(ModuleSummarySchema.safeParse({ ...row, signatures: [{ as: 'f', params: ['i64'], results: [] }] }).success).toBe(false);
    expect(ModuleSummarySchema.safeParse({ ...row, signatures: [{ as: 'f', params: [], results: [] }] }).success).toBe(true);
  });
});
