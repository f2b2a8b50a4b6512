import { describe, expect, it } from 'vitest';
import { decideImport, type LoaderGraph } from './loader-policy.ts';
import { ENTRY_MODULE_NAME } from './entry-transform.ts';

const graph: LoaderGraph = {
  entries: { '@acme/geo': 'js:geo', '@acme/geo/wasm': 'wasm:geo' },
  modules: {
    'js:geo': {
      moduleId: 'js:geo',
      kind: 'js',
      displayName: '@acme/geo',
      packName: '@acme/geo',
      imports: { './util.js': 'js:geo/util', 'sandbox:wasm-bridge': 'sandbox:wasm-bridge' },
    },
    'js:geo/util': { moduleId: 'js:geo/util', kind: 'js', displayName: '@acme/geo internal util.js', packName: '@acme/geo', imports: {} },
    'wasm:geo': {
      moduleId: 'wasm:geo',
      kind: 'wasm',
      displayName: '@acme/geo/wasm',
      packName: '@acme/geo',
      imports: { 'sandbox:wasm-bridge': 'sandbox:wasm-bridge' },
    },
  },
};

describe('decideImport', () => {
  it('lets the entry import exactly its declared specifiers', () => {
    expect(decideImport(graph, ENTRY_MODULE_NAME, '@acme/geo')).toEqual({ ok: true, moduleId: 'js:geo' });
    expect(decideImport(graph, ENTRY_MODULE_NAME, '@acme/geo/')).toMatchObject({ ok: false, code: 'import-denied' });
    expect(decideImport(graph, ENTRY_MODULE_NAME, '@ACME/geo')).toMatchObject({ ok: false, code: 'import-denied' });
  });

  it('lets a module import exactly the keys of its own imports map', () => {
    expect(decideImport(graph, 'js:geo', './util.js')).toEqual({ ok: true, moduleId: 'js:geo/util' });
    expect(decideImport(graph, 'js:geo', './util')).toMatchObject({ ok: false });
    expect(decideImport(graph, 'js:geo/util', './util.js')).toMatchObject({ ok: false });
  });

  it('never treats Object.prototype keys as map entries', () => {
    expect(decideImport(graph, ENTRY_MODULE_NAME, 'constructor')).toMatchObject({ ok: false, code: 'import-denied' });
    expect(decideImport(graph, 'js:geo', '__proto__')).toMatchObject({ ok: false, code: 'import-denied' });
    expect(decideImport(graph, 'toString', 'x')).toMatchObject({ ok: false, code: 'import-denied' });
  });

  it("serves the bridge to WASM facades only, whatever a JS module's map says", () => {
    expect(decideImport(graph, 'wasm:geo', 'sandbox:wasm-bridge')).toEqual({ ok: true, moduleId: 'sandbox:wasm-bridge' });
    expect(decideImport(graph, 'js:geo', 'sandbox:wasm-bridge')).toEqual({
      ok: false,
      code: 'import-denied',
      message:
        'Import "sandbox:wasm-bridge" from "@acme/geo" was denied: the private WASM bridge is reachable only from generated WASM facades. This node\'s packages declaration is ["@acme/geo", "@acme/geo/wasm"].',
    });
  });

  it('names the declaration and explains Node builtins', () => {
    expect(decideImport(graph, ENTRY_MODULE_NAME, 'node:fs')).toEqual({
      ok: false,
      code: 'import-denied',
      message:
        'Import "node:fs" from the node\'s code was denied: the node\'s code may import only the modules in its packages declaration. Node builtins do not exist in the sandbox. This node\'s packages declaration is ["@acme/geo", "@acme/geo/wasm"].',
    });
  });

  it('says when the declaration is empty', () => {
    expect(decideImport({ entries: {}, modules: {} }, ENTRY_MODULE_NAME, 'x')).toMatchObject({
      message: expect.stringContaining("This node's packages declaration is empty."),
    });
  });
});
