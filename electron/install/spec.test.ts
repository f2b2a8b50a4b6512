import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpec } from './spec.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-spec-'));
writeFileSync(path.join(dir, 'pack-1.0.0.tgz'), 'not really a tarball');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GIT = 'Git sources cannot be installed in this version; install a published version from the registry, or a .tgz made with `npm pack`.';

describe('parseSpec', () => {
  it.each([
    ['sandbox-csv', 'sandbox-csv', 'sandbox-csv'],
    ['sandbox-csv@1.2.3', 'sandbox-csv@1.2.3', 'sandbox-csv'],
    ['sandbox-csv@next', 'sandbox-csv@next', 'sandbox-csv'],
    ['@nodetool-ai/geo', '@nodetool-ai/geo', '@nodetool-ai/geo'],
    ['@nodetool-ai/geo@^1.0.0', '@nodetool-ai/geo@^1.0.0', '@nodetool-ai/geo'],
  ])('accepts the registry spec %s', (spec, npmArg, name) => {
    expect(parseSpec(spec, dir)).toEqual({ ok: true, value: { source: 'registry', npmArg, name, spec } });
  });

  it('accepts a local tarball, resolved to an absolute path', () => {
    expect(parseSpec('./pack-1.0.0.tgz', dir)).toEqual({
      ok: true,
      value: { source: 'tarball-file', npmArg: path.join(dir, 'pack-1.0.0.tgz'), spec: './pack-1.0.0.tgz' },
    });
    expect(parseSpec(`file:${path.join(dir, 'pack-1.0.0.tgz')}`, '/')).toMatchObject({ ok: true, value: { source: 'tarball-file' } });
  });

  it('accepts an https tarball URL', () => {
    expect(parseSpec('https://example.org/dl/pack-1.0.0.tgz', dir)).toEqual({
      ok: true,
      value: { source: 'tarball-url', npmArg: 'https://example.org/dl/pack-1.0.0.tgz', spec: 'https://example.org/dl/pack-1.0.0.tgz' },
    });
  });

  it.each([
    'github:user/repo',
    'user/repo',
    'user/repo#main',
    'git+ssh://git@github.com/u/r.git',
    'git://github.com/u/r',
    'git@github.com:u/r.git',
    'https://github.com/u/r',
    'https://gitlab.com/u/r/-/archive/x.tgz',
    'gitlab:u/r',
    'bitbucket:u/r',
  ])('refuses the git spec %s', (spec) => {
    expect(parseSpec(spec, dir)).toEqual({ ok: false, code: 'spec-unsupported', message: GIT });
  });

  it('refuses option injection, aliases, plain http, folders, missing files and bad names', () => {
    expect(parseSpec('--registry=http://evil', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: '"--registry=http://evil" looks like an option, not a package; package specs never start with "-".',
    });
    expect(parseSpec('-g', dir)).toMatchObject({ ok: false, code: 'spec-unsupported' });
    expect(parseSpec('csv@npm:evil-pkg', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: '"csv@npm:evil-pkg" is an alias or a protocol spec, which cannot be installed; give the package name itself.',
    });
    expect(parseSpec('npm:evil', dir)).toMatchObject({ ok: false, code: 'spec-unsupported' });
    expect(parseSpec('x@file:../y', dir)).toMatchObject({ ok: false, code: 'spec-unsupported' });
    expect(parseSpec('http://example.org/p.tgz', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: 'Tarballs are only installed over https, never plain http.',
    });
    expect(parseSpec('https://example.org/not-a-tarball', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: 'An https spec must point at a package tarball (a URL ending in .tgz or .tar.gz).',
    });
    expect(parseSpec('https://user:pw@example.org/p.tgz', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: 'A tarball URL must not carry credentials.',
    });
    expect(parseSpec('./some-folder', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: 'Installing from a folder is not supported; make a tarball with `npm pack` and install the .tgz.',
    });
    expect(parseSpec('./missing.tgz', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: `There is no tarball at ${path.join(dir, 'missing.tgz')}.`,
    });
    expect(parseSpec('Bad_Name', dir)).toEqual({ ok: false, code: 'spec-unsupported', message: '"Bad_Name" is not a valid npm package name.' });
    expect(parseSpec('pkg@1.0.0 --ignore-scripts=false', dir)).toEqual({
      ok: false,
      code: 'spec-unsupported',
      message: 'A package spec cannot contain spaces or control characters.',
    });
    expect(parseSpec('pkg@a:b', dir)).toMatchObject({ ok: false, code: 'spec-unsupported' });
    expect(parseSpec('', dir)).toMatchObject({ ok: false, code: 'spec-unsupported' });
  });
});
