// Where a Node thread (a sandbox worker, the admission probe) gets the quickjs-ng binary it
// compiles once: the registered asset, which the packaged app stages next to its bundles and a
// dev checkout finds inside the variant package (electron/platform/assets.ts). Instances are then
// made from the compiled module: one per sandbox, restored after each run, in a sandbox worker
// (shared/sandbox/supply/sandbox-supply.ts); one per probe in the admission probe (electron/compiler/).

import { readFile } from 'node:fs/promises';
import { assetPath } from '../../platform/assets.ts';
import { compileQuickJsNg } from '../../../shared/sandbox/supply/engine.ts';

export async function compileEngineWasm(): Promise<WebAssembly.Module> {
  return compileQuickJsNg(await readFile(assetPath('quickjs-ng-wasm')));
}
