// loadPack with in-memory powers: the same kernel the Node adapter drives, fed from a map of
// files, as a browser or a test would. Filesystem-specific rules (symlinks, FIFOs) are covered by
// electron/catalog/discover.test.ts against real directories.
import { describe, expect, it } from 'vitest';
import { loadPack, type PackLoad, type PackPowers } from './pack-loader.ts';

// Not sha256, but a well-mixed 64-hex-digit digest (eight seeded FNV-1a lanes): enough to show
// that the kernel takes whatever hash it is given.
const sha256 = (bytes: Uint8Array): string => {
  let out = '';
  for (let lane = 0; lane < 8; lane++) {
    let h = (0x811c9dc5 ^ (lane * 0x9e3779b1)) >>> 0;
    for (const byte of bytes) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out;
};

function powers(files: Record<string, string>): PackPowers {
  const encoder = new TextEncoder();
  return {
    sha256,
    async readFile(path, maxBytes) {
      const text = files[path];
      if (text === undefined) return { ok: false, code: 'file-missing', message: `${path} does not exist in the pack.` };
      const bytes = encoder.encode(text);
      if (bytes.byteLength > maxBytes) return { ok: false, code: 'file-too-large', size: bytes.byteLength, message: `${path} is too large.` };
      return { ok: true, bytes };
    },
    async readSkill() {
      const text = files['SKILL.md'];
      return text === undefined ? undefined : { size: encoder.encode(text).byteLength, bytes: encoder.encode(text) };
    },
  };
}

async function load(pkg: unknown, files: Record<string, string> = {}, folderName = 'p'): Promise<PackLoad> {
  const text = typeof pkg === 'string' ? pkg : JSON.stringify(pkg);
  return loadPack({ folderName, packageJsonText: text, packageJsonBytes: text.length }, powers(files));
}

describe('loadPack', () => {
  it('ignores packages that are not sandbox packs', async () => {
    expect(await load({ name: 'p', version: '1.0.0' })).toEqual({ kind: 'not-a-pack' });
    expect(await load({ name: 'p', version: '1.0.0', nodetool: { register: 'x.js' } })).toEqual({ kind: 'not-a-pack' });
    expect(await load('{ not json')).toEqual({ kind: 'not-a-pack' });
  });

  it.each([
    [{ name: 'p', version: '1.0.0', nodetool: 'yes' }, 'manifest-invalid', 'package.json nodetool: (root): Invalid input: expected object, received string'],
    [{ name: 'P!', version: '1.0.0', nodetool: { apiVersion: 1, sandboxModules: [] } }, 'manifest-invalid', 'package.json: name: not a valid npm package name'],
    [{ name: 'p', version: '1.0.0', nodetool: { apiVersion: 3, sandboxModules: [] } }, 'api-version-unsupported', 'nodetool.apiVersion is 3; this app understands apiVersion 1.'],
    [{ name: 'p', version: '1.0.0\u001b[31m', nodetool: { apiVersion: 1, sandboxModules: [] } }, 'manifest-invalid', 'package.json version "1.0.0?[31m" is not a semver version.'],
    [{ name: 'p', version: 'latest', nodetool: { apiVersion: 1, sandboxModules: [] } }, 'manifest-invalid', 'package.json version "latest" is not a semver version.'],
  ])('rejects %j', async (pkg, code, reason) => {
    const result = await load(pkg);
    expect(result.kind === 'pack' && { code: result.pack.code, reason: result.pack.reason }).toEqual({ code, reason });
  });

  it('rejects a public entry whose file is also listed as internal', async () => {
    const result = await load(
      { name: 'p', version: '1.0.0', nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'a.js' }], internal: ['./a.js'] } },
      { 'a.js': 'export {};' },
    );
    expect(result.kind === 'pack' && [result.pack.code, result.pack.reason]).toEqual([
      'internal-invalid',
      '"a.js" is both in the "internal" list and the file of public entry "p".',
    ]);
  });

  it('builds ready modules from in-memory files with injected hashing', async () => {
    const result = await load(
      { name: 'p', version: '1.0.0', nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'a.js' }, { name: 'b', kind: 'js', file: 'b.js' }] } },
      { 'a.js': 'import { b } from "p/b"; export const a = b + 1;', 'b.js': 'export const b = 1;', 'SKILL.md': '---\nname: p\ndescription: d\n---\n' },
    );
    if (result.kind !== 'pack') throw new Error('expected a pack');
    expect(result.pack.warnings).toEqual([]);
    expect(result.pack.modules.map((m) => [m.specifier, m.status, m.exports])).toEqual([
      ['p', 'ready', ['a']],
      ['p/b', 'ready', ['b']],
    ]);
    const [a, b] = result.pack.modules;
    expect(result.pack.graph?.modules.get(a?.moduleId ?? '')?.imports).toEqual({ 'p/b': b?.moduleId });
  });
});
