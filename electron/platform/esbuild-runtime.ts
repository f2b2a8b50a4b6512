// The staged bundle's "esbuild": bundle-backend points every `import ... from 'esbuild'` here.
// esbuild's JS API spawns its platform binary, which the OS cannot execute from inside an asar
// archive, and it reads ESBUILD_BINARY_PATH once, when its module first evaluates. A plain
// external import would be hoisted above any code of ours, so this module loads the staged API
// itself, by its registered path, after pointing it at the registered (unpacked) binary.

import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Esbuild from 'esbuild';
import { assetPath, assetSpec, esbuildBinary } from './assets.ts';

function load(): typeof Esbuild {
  const binary = assetPath('esbuild-binary');
  const file = esbuildBinary().file;
  // A user's own ESBUILD_BINARY_PATH would pair our API with another binary version: ours wins.
  process.env.ESBUILD_BINARY_PATH = path.join(binary, ...file.split('/'));
  const api = assetPath('esbuild');
  const files = assetSpec('esbuild').files ?? [];
  if (!files.includes('lib/main.js')) throw new Error('the esbuild asset does not stage lib/main.js');
  return createRequire(path.join(api, 'package.json'))('./lib/main.js') as typeof Esbuild;
}

const esbuild = load();

export const {
  analyzeMetafile,
  analyzeMetafileSync,
  build,
  buildSync,
  context,
  formatMessages,
  formatMessagesSync,
  initialize,
  stop,
  transform,
  transformSync,
  version,
} = esbuild;
export default esbuild;
