// The messages from the Node WASM pool to its workers: calls are typed here and checked by hand
// in the worker (which stays dependency-free, see wasm-worker.mjs). Replies come from a thread
// that runs pack code; the pool core parses each from `unknown` with the schema it shares with
// the browser pool (shared/sandbox/wasm/wasm-worker-reply.ts).

import type { WorkerOptions } from 'node:worker_threads';
import type { CallAbi, CallArg } from '../../../shared/sandbox/wasm/canonical-abi.mjs';
import type { MemoryShape } from '../../../shared/sandbox/wasm/instance-supply.mjs';
import { assetUrl } from '../../platform/assets.ts';

export interface WorkerCallMessage {
  readonly type: 'call';
  readonly id: number;
  readonly digest: string;
  /** Sent the first time a worker needs this digest, and again when it reports it missing. */
  readonly module?: WebAssembly.Module;
  /** With `module` when it imports its memory from the host: that memory's limits (wasm-memory-import.ts). */
  readonly memory?: MemoryShape;
  readonly exportName: string;
  /** Numbers, and bytes for a typed export's `bytes`/`string` parameters. */
  readonly args: readonly CallArg[];
  /** A typed export's lowering (shared/sandbox/wasm/canonical-abi.mjs). */
  readonly abi?: CallAbi;
  /** After this call, keep a fresh instance of the module ready for the next one. */
  readonly spare?: boolean;
}

/** How every WASM worker starts, in a pool or as a sandbox worker's lane. */
export const WASM_WORKER_OPTIONS: Readonly<Pick<WorkerOptions, 'execArgv' | 'resourceLimits'>> = {
  // No inherited loaders or flags: the entry is plain ESM and starts fastest bare.
  execArgv: [],
  // WASM memories are external to the JS heap (and bounded by validation); this caps the
  // worker's own JS heap, which only ever holds a call's few numbers.
  resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
};

/** Where the worker entry lives. A bundler does not follow this URL: copy the file next to the bundle. */
export const WASM_WORKER_URL = assetUrl('wasm-worker');
