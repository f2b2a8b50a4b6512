import { describe, expect, it } from 'vitest';
import { versionCapability } from './update-capability.ts';

describe('what a registry version can do outside the sandbox', () => {
  it('reads the install mode, the register entry and the install-time scripts from the manifest', () => {
    expect(
      versionCapability({
        version: '2.0.0',
        scripts: { test: 'vitest', postinstall: 'node setup.js', prepare: 'tsc' },
        nodetool: { apiVersion: 1, register: 'register.js', sandboxModules: [{ name: '.', kind: 'js', file: 'a.js' }] },
      }),
    ).toEqual({
      latestMode: 'hybrid',
      latestRegister: 'register.js',
      latestScripts: [
        { event: 'postinstall', command: 'node setup.js' },
        { event: 'prepare', command: 'tsc' },
      ],
    });
    expect(versionCapability({ nodetool: { apiVersion: 1, register: 'r.js' } })).toEqual({ latestMode: 'register', latestRegister: 'r.js', latestScripts: [] });
    expect(versionCapability({ nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'a.js' }] } })).toEqual({
      latestMode: 'sandbox-only',
      latestScripts: [],
    });
  });

  it("counts the registry's hasInstallScript (a binding.gyp) as an install script", () => {
    expect(versionCapability({ hasInstallScript: true, nodetool: { apiVersion: 1, register: 'r.js' } }).latestScripts).toEqual([
      { event: 'install', command: 'node-gyp rebuild' },
    ]);
  });

  it('answers no mode for a manifest it cannot read, and nothing at all for what is not a manifest', () => {
    expect(versionCapability({ nodetool: { apiVersion: 99 } })).toEqual({ latestScripts: [] });
    expect(versionCapability('nonsense')).toEqual({ latestScripts: [] });
  });
});
