// The facade generator: one async export per declared WASM export, calling the bridge by the
// guest-visible name; names validation would reject can never reach generated source.

import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';
import { WASM_BRIDGE_SPECIFIER } from '../protocol/wasm-bridge.ts';
import { generateWasmFacade } from './wasm-facade.ts';

const sig = (as: string) => ({ wasm: `${as}-bin`, as, params: ['f64' as const], results: ['f64' as const] });

describe('generateWasmFacade', () => {
  it('emits a module whose only import is the bridge and whose exports are the `as` names', () => {
    const source = generateWasmFacade({ moduleId: 'm_1"2', exports: [sig('distance'), sig('tileX')] });
    const program = parse(source, { ecmaVersion: 2023, sourceType: 'module' });
    const imports = program.body.filter((n) => n.type === 'ImportDeclaration').map((n) => n.source.value);
    expect(imports).toEqual([WASM_BRIDGE_SPECIFIER]);
    const exported = program.body.flatMap((n) => (n.type === 'ExportNamedDeclaration' && n.declaration?.type === 'FunctionDeclaration' ? [n.declaration.id.name] : []));
    expect(exported).toEqual(['distance', 'tileX']);
    expect(source).toContain('const id = "m_1\\"2";');
    expect(source).toContain('export async function distance(...args) { return await callWasm(id, "distance", args); }');
  });

  it.each(['class', 'then', 'foo-bar', '1x', '__proto__'])('refuses the export name %j', (name) => {
    expect(() => generateWasmFacade({ moduleId: 'm', exports: [sig(name)] })).toThrow(TypeError);
  });
});
