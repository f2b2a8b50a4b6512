// Test and bench support: the bridge packs we ship, published to a real local registry and
// installed into a fresh managed root by the real installer — the way a user gets them — so
// the compiler, the catalog and the kernel are exercised against exactly what ships.

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInstaller } from '../install/index.ts';
import { startRegistry, type TestRegistry } from './verdaccio.ts';

export const PACKS_DIR = fileURLToPath(new URL('../../packs/', import.meta.url));

/** Folder under packs/ → package name and the library it bridges. */
export const BRIDGE_PACKS = [
  { dir: 'sandbox-csv', name: '@nodetool-ai/sandbox-csv', library: 'papaparse' },
  { dir: 'sandbox-yaml', name: '@nodetool-ai/sandbox-yaml', library: 'js-yaml' },
  { dir: 'sandbox-xml', name: '@nodetool-ai/sandbox-xml', library: 'fast-xml-parser' },
  { dir: 'sandbox-diff', name: '@nodetool-ai/sandbox-diff', library: 'diff' },
  { dir: 'sandbox-zip', name: '@nodetool-ai/sandbox-zip', library: 'fflate' },
  { dir: 'sandbox-html', name: '@nodetool-ai/sandbox-html', library: 'cheerio' },
  { dir: 'sandbox-dates', name: '@nodetool-ai/sandbox-dates', library: 'date-fns' },
  { dir: 'sandbox-validation', name: '@nodetool-ai/sandbox-validation', library: 'valibot' },
  { dir: 'sandbox-markdown', name: '@nodetool-ai/sandbox-markdown', library: 'marked' },
  { dir: 'sandbox-toml', name: '@nodetool-ai/sandbox-toml', library: 'smol-toml' },
  { dir: 'sandbox-stats', name: '@nodetool-ai/sandbox-stats', library: 'simple-statistics' },
] as const;

export interface BridgeRoot {
  readonly root: string;
  readonly registry: TestRegistry;
  dispose(): Promise<void>;
}

/** Start a registry, publish every bridge pack, install them all into a fresh managed root. */
export async function installBridgePacks(): Promise<BridgeRoot> {
  const registry = await startRegistry();
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sp-bridge-root-')));
  try {
    for (const pack of BRIDGE_PACKS) await registry.publish(path.join(PACKS_DIR, pack.dir));
    const installer = createInstaller({ root, registry: registry.url });
    for (const pack of BRIDGE_PACKS) {
      const installed = await installer.install(pack.name);
      if (!installed.ok) throw new Error(`installing ${pack.name}: ${installed.code}: ${installed.message}`);
    }
  } catch (error) {
    await registry.stop();
    await fs.rm(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    registry,
    async dispose() {
      try {
        await registry.stop();
      } finally {
        await fs.rm(root, { recursive: true, force: true });
      }
    },
  };
}
