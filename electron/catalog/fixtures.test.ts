// The committed fixture binaries must be exactly what scripts/make-fixture-wasm.ts describes, so a
// reader can trust the readable description instead of an opaque blob.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE_WASM } from '../../scripts/make-fixture-wasm.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/discovery');

describe('fixture WASM binaries', () => {
  it.each(Object.keys(FIXTURE_WASM))('%s matches its description', async (rel) => {
    const committed = new Uint8Array(await readFile(path.join(fixtures, rel)));
    expect(committed).toEqual(FIXTURE_WASM[rel]);
  });
});
