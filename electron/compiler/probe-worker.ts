// The admission probe's engine side, in its own worker thread so a hostile module's top level
// (deep recursion, native-heavy work) can at worst cost this thread, never the app. It runs the
// bundle through the real sandbox kernel exactly as a Code node would import it, with no grants
// at all: the kernel's hardening prelude (no eval, no Function constructors, no timers), its
// 64 MB / 512 KB limits, its deadline interrupt and its capped console; every capability call
// is refused. Importing executes the module's top level; nothing else of it is called. Each probe
// runs on an engine instance of its own (engine-supply.ts): one pack's top level
// must not read what another pack's source or top level left in a reused engine's memory.

import { parentPort } from 'node:worker_threads';
import { NO_GRANTS } from '../../shared/protocol/run.ts';
import { runKernel } from '../../shared/sandbox/kernel/kernel.ts';
import { SYSTEM_CLOCK } from '../../shared/sandbox/kernel/system-clock.ts';
import { compileEngineWasm } from '../runtime/sandbox/engine-wasm.ts';
import { EngineSupply } from './engine-supply.ts';
import { ProbeRequestSchema, type ProbeResponse } from './probe-protocol.ts';

const PROBE_SPECIFIER = 'sandbox-probe:module';
const PROBE_MODULE_ID = 'sandbox-probe';
/** Kernel failure codes that may be this machine's load rather than the module: never cached. */
const TRANSIENT = new Set(['timeout', 'sandbox-crashed']);

const engines = new EngineSupply(compileEngineWasm);

async function probe(raw: unknown): Promise<ProbeResponse> {
  const parsed = ProbeRequestSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, code: 'invalid-data', message: 'probe request invalid', transient: true };
  const req = parsed.data;
  // Taken before the clock starts: making an engine is not the module's time.
  const { engine } = await engines.take();
  const started = performance.now();
  const { result } = await runKernel(
    {
      code: `import * as ns from ${JSON.stringify(PROBE_SPECIFIER)};\nreturn Object.keys(ns).sort();`,
      entries: { [PROBE_SPECIFIER]: PROBE_MODULE_ID },
      modules: {
        [PROBE_MODULE_ID]: {
          moduleId: PROBE_MODULE_ID,
          kind: 'js',
          packName: 'probe',
          packVersion: '0.0.0',
          displayName: req.filename,
          source: req.source,
          imports: {},
          digest: '0'.repeat(64),
        },
      },
      inputs: {},
      grants: NO_GRANTS,
      timeoutMs: req.deadlineMs,
    },
    {
      engine,
      ...SYSTEM_CLOCK,
      hostCall: async (_kind, name) => ({ ok: false, code: 'capability-denied', message: `${name} is not available while a package is being admitted` }),
    },
  );
  void engines.prepare();
  const outputBytes = result.logs.reduce((n, log) => n + log.text.length, 0);
  if (!result.ok) return { ok: false, code: result.code, message: result.message, ...(TRANSIENT.has(result.code) ? { transient: true } : {}) };
  const exportsList = Array.isArray(result.value) ? result.value.map(String) : [];
  return { ok: true, exports: exportsList, outputBytes, initMs: performance.now() - started };
}

// Booting (tsx, the engine's WASM) is not part of the module's deadline: say when we are ready.
engines.prepare().then(
  () => parentPort?.postMessage({ ready: true }),
  (error: unknown) =>
    parentPort?.postMessage({
      ok: false,
      code: 'sandbox-crashed',
      message: `probe engine failed to load: ${(error as Error).message}`,
      transient: true,
    } satisfies ProbeResponse),
);

parentPort?.on('message', (raw: unknown) => {
  probe(raw).then(
    (response) => parentPort?.postMessage(response),
    (error: unknown) =>
      parentPort?.postMessage({
        ok: false,
        code: 'sandbox-crashed',
        message: `probe failed: ${(error as Error).message}`,
        transient: true,
      } satisfies ProbeResponse),
  );
});
