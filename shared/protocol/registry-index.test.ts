import { describe, expect, it } from 'vitest';
import { parseWith } from './parse.ts';
import bundledJson from '../../registry/index.json';
import { RegistryIndexSchema, searchIndex } from './registry-index.ts';

const bundled: unknown = bundledJson;

describe('registry index', () => {
  it('the bundled index parses and lists our thirteen packs', () => {
    const parsed = parseWith(RegistryIndexSchema, bundled, 'registry/index.json');
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.value.packs.map((p) => p.name).sort()).toEqual([
      '@nodetool-ai/sandbox-csv',
      '@nodetool-ai/sandbox-dates',
      '@nodetool-ai/sandbox-diff',
      '@nodetool-ai/sandbox-geo',
      '@nodetool-ai/sandbox-hash',
      '@nodetool-ai/sandbox-html',
      '@nodetool-ai/sandbox-markdown',
      '@nodetool-ai/sandbox-stats',
      '@nodetool-ai/sandbox-toml',
      '@nodetool-ai/sandbox-validation',
      '@nodetool-ai/sandbox-xml',
      '@nodetool-ai/sandbox-yaml',
      '@nodetool-ai/sandbox-zip',
    ]);
  });

  it('searches every word across name, description, keywords and modules; recommended first', () => {
    const parsed = parseWith(RegistryIndexSchema, bundled, 'registry/index.json');
    if (!parsed.ok) throw new Error(parsed.message);
    expect(searchIndex(parsed.value, 'CSV').map((e) => e.name)).toEqual(['@nodetool-ai/sandbox-csv']);
    expect(searchIndex(parsed.value, 'wasm simplify').map((e) => e.name)).toEqual(['@nodetool-ai/sandbox-geo']);
    expect(searchIndex(parsed.value, 'parse').map((e) => e.name)).toEqual([
      '@nodetool-ai/sandbox-csv',
      '@nodetool-ai/sandbox-dates',
      '@nodetool-ai/sandbox-toml',
      '@nodetool-ai/sandbox-xml',
      '@nodetool-ai/sandbox-yaml',
      '@nodetool-ai/sandbox-html',
    ]);
    expect(searchIndex(parsed.value, 'sha256 base64').map((e) => e.name)).toEqual(['@nodetool-ai/sandbox-hash']);
    expect(searchIndex(parsed.value, 'schema').map((e) => e.name)).toEqual(['@nodetool-ai/sandbox-validation']);
    expect(searchIndex(parsed.value, 'markdown html').map((e) => e.name)).toEqual(['@nodetool-ai/sandbox-markdown']);
    expect(searchIndex(parsed.value, 'nothing-like-this')).toEqual([]);
    expect(searchIndex(parsed.value, '')).toHaveLength(13);
  });

  it('marks none of our packs as known skipped (cheerio is admitted since the guest has atob); an empty reason is refused', () => {
    const parsed = parseWith(RegistryIndexSchema, bundled, 'registry/index.json');
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.value.packs.filter((p) => p.knownSkipped).map((p) => p.name)).toEqual([]);
    expect(
      parseWith(
        RegistryIndexSchema,
        { format: 1, packs: [{ name: 'a', description: '', version: '1', sandboxModules: [], recommended: false, knownSkipped: '' }] },
        'idx',
      ),
    ).toMatchObject({ ok: false, code: 'invalid-data', message: expect.stringMatching(/^idx: packs\.0\.knownSkipped: /) });
  });

  it('refuses entries with unknown keys or bad names, naming the key path', () => {
    expect(
      parseWith(RegistryIndexSchema, { format: 1, packs: [{ name: '../evil', description: '', version: '1', sandboxModules: [], recommended: false }] }, 'idx'),
    ).toEqual({
      ok: false,
      code: 'invalid-data',
      message: 'idx: packs.0.name: not a valid npm package name',
    });
    expect(
      parseWith(
        RegistryIndexSchema,
        { format: 1, packs: [{ name: 'a', description: '', version: '1', sandboxModules: [], recommended: false, run: 'x' }] },
        'idx',
      ),
    ).toMatchObject({ ok: false, code: 'invalid-data' });
  });
});
