// Bench support (kernel-libraries.ts): the floor for a module set's first run, measured in a
// worker thread of its own, as the pool's first run is — a bare quickjs-ng engine made the way a
// sandbox worker makes one (the same compiled binary, a bounded memory), no prelude, no loader
// policy. It first evaluates the `warm` sets (as the pool's worker served other runs first), then
// times the compile + evaluate of `target` in a new runtime and context, and posts the ms.

import { parentPort, workerData } from 'node:worker_threads';
import type { KernelRunRequest } from '../../shared/protocol/run.ts';
import { instantiateQuickJsNg } from '../../shared/sandbox/supply/engine.ts';
import { compileEngineWasm } from '../../electron/runtime/sandbox/engine-wasm.ts';

interface FloorJob {
  readonly warm: readonly KernelRunRequest[];
  readonly target: KernelRunRequest;
}

const { warm, target } = workerData as FloorJob;
const { engine } = await instantiateQuickJsNg(await compileEngineWasm());

function evaluate(request: KernelRunRequest): number {
  const rt = engine.newRuntime();
  rt.setModuleLoader(
    (id) => request.modules[id]!.source,
    (base, requested) => (base === 'entry' ? request.entries[requested]! : request.modules[base]!.imports[requested]!),
  );
  const ctx = rt.newContext();
  const start = performance.now();
  try {
    const imports = Object.keys(request.entries)
      .map((specifier, i) => `import * as m${i} from ${JSON.stringify(specifier)};`)
      .join('\n');
    const evaluated = ctx.evalCode(imports, 'entry', { type: 'module' });
    if (evaluated.error) throw new Error(`bare evaluation failed: ${JSON.stringify(ctx.dump(evaluated.error))}`);
    rt.executePendingJobs();
    evaluated.value.dispose();
    return performance.now() - start;
  } finally {
    ctx.dispose();
    rt.dispose();
  }
}

for (let i = 0; i < 10; i++) evaluate({ ...target, entries: {}, modules: {} });
for (const request of warm) evaluate(request);
parentPort!.postMessage(evaluate(target));
