// `npm install` prints EBADENGINE only when the Node on PATH is older than a package asks for.
// Measured with Node 20.20.2 on PATH: six packages, each a five-line warning — this project
// (engines ">=22.12") and five of Electron 45's tooling packages (electron, @electron/get,
// @electron/rebuild, @electron-internal/extract-zip, node-abi: ">=22.12.0"). None is a wrong
// engines field of ours: the cause is the old Node. So the project names its Node (.nvmrc, the
// version .ci/run installs), and this test holds every locked package to accept it.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
// The semver of the npm the app ships (a pinned dependency), the same matcher npm's engine check uses.
const semver = createRequire(path.join(ROOT, 'node_modules/npm/package.json'))('semver') as {
  satisfies(version: string, range: string): boolean;
};

const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};
const nvmrc = readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim();
const ciNode = /^NODE_VERSION=(\S+)$/m.exec(readFileSync(path.join(ROOT, '.ci/run'), 'utf8'))?.[1];

/** Locked packages whose engines.node refuses `version` (what npm would warn about). */
function refusing(version: string): string[] {
  return Object.entries(lock.packages).flatMap(([where, entry]) => {
    const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    return node !== undefined && !semver.satisfies(version, node) ? [where === '' ? '(this project)' : where.replace(/^.*node_modules\//, '')] : [];
  });
}

describe('engines', () => {
  it('.nvmrc names the Node that .ci/run installs', () => {
    expect(nvmrc).toBe(ciNode);
  });

  it('every locked package accepts that Node, so npm install on it prints no EBADENGINE', () => {
    expect(refusing(nvmrc)).toEqual([]);
  });

  it('on Node 20 the warnings are this project and five Electron tooling packages, all asking for 22.12 or newer', () => {
    expect(refusing('20.20.2')).toEqual(['(this project)', '@electron-internal/extract-zip', '@electron/get', '@electron/rebuild', 'electron', 'node-abi']);
  });
});
