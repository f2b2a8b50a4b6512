// The admission probe's engine side, in its own worker thread so a hostile module's top level
// (deep recursion, native-heavy work) can at worst cost this thread, never the app. The context
// is capability-free: only ECMAScript builtins, eval and the Function constructors removed as
// in a real run, and a console whose output is counted against a cap and then dropped. Importing
// executes the module's top level; nothing else of it is called.

import { parentPort } from 'node:worker_threads';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten-core';
import { ProbeRequestSchema, type ProbeResponse } from './probe-protocol.ts';

const HARDENING = `(() => {
  const deny = function () { throw new EvalError('code generation is not allowed in the sandbox'); };
  const ctors = [
    Function,
    Object.getPrototypeOf(function* () {}).constructor,
    Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(async function* () {}).constructor,
  ];
  for (const C of ctors) Object.defineProperty(C.prototype, 'constructor', { value: deny, writable: false, configurable: false });
  delete globalThis.eval;
  delete globalThis.Function;
})();`;

function describeError(ctx: QuickJSContext, handle: QuickJSHandle): string {
  const dumped: unknown = ctx.dump(handle);
  if (dumped && typeof dumped === 'object') {
    const e = dumped as { name?: unknown; message?: unknown };
    if (typeof e.message === 'string') return `${typeof e.name === 'string' ? e.name : 'Error'}: ${e.message}`;
  }
  return `thrown: ${String(dumped)}`.slice(0, 500);
}

const modulePromise = newQuickJSWASMModuleFromVariant(variant);

async function probe(raw: unknown): Promise<ProbeResponse> {
  const parsed = ProbeRequestSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: 'probe request invalid' };
  const req = parsed.data;
  const qjs = await modulePromise;
  const runtime = qjs.newRuntime();
  try {
    runtime.setMemoryLimit(req.memoryBytes);
    runtime.setMaxStackSize(req.stackBytes);
    const started = Date.now();
    const deadline = started + req.deadlineMs;
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
    runtime.setModuleLoader((name) => ({ error: new Error(`import of "${name}" denied: a sandbox bundle has no imports`) }));
    const ctx = runtime.newContext();
    try {
      let written = 0;
      let overflow = false;
      const consoleObj = ctx.newObject();
      for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
        const fn = ctx.newFunction(level, (...args) => {
          for (const a of args) written += String(ctx.dump(a)).length + 1;
          if (written > req.outputBytes) overflow = true;
        });
        ctx.setProp(consoleObj, level, fn);
        fn.dispose();
      }
      ctx.setProp(ctx.global, 'console', consoleObj);
      consoleObj.dispose();
      const hardened = ctx.evalCode(HARDENING, 'hardening.js', { type: 'global' });
      if (hardened.error) {
        const message = describeError(ctx, hardened.error);
        hardened.error.dispose();
        throw new Error(`probe hardening failed: ${message}`);
      }
      hardened.value.dispose();

      const evaluated = ctx.evalCode(req.source, req.filename, { type: 'module' });
      if (evaluated.error) {
        const error = describeError(ctx, evaluated.error);
        evaluated.error.dispose();
        return { ok: false, error };
      }
      let ns = evaluated.value;
      const first = ctx.getPromiseState(ns);
      if (!(first.type === 'fulfilled' && first.notAPromise === true)) {
        if (first.type === 'fulfilled') first.value.dispose();
        if (first.type === 'rejected') first.error.dispose();
        // A module evaluates to a promise (top-level await): run jobs until it settles.
        for (;;) {
          const jobs = runtime.executePendingJobs();
          if (jobs.error) {
            const error = describeError(ctx, jobs.error);
            jobs.error.dispose();
            ns.dispose();
            return { ok: false, error };
          }
          const state = ctx.getPromiseState(ns);
          if (state.type === 'pending') {
            if (jobs.value === 0) {
              ns.dispose();
              return { ok: false, error: 'the module never finished initializing (top-level await on a promise that never settles)' };
            }
            continue;
          }
          ns.dispose();
          if (state.type === 'rejected') {
            const error = describeError(ctx, state.error);
            state.error.dispose();
            return { ok: false, error };
          }
          ns = state.value;
          break;
        }
      }
      const names = ctx.getOwnPropertyNames(ns, { strings: true, onlyEnumerable: true });
      const exportsList: string[] = [];
      if (!names.error) {
        for (const h of names.value) {
          exportsList.push(String(ctx.dump(h)));
          h.dispose();
        }
      } else names.error.dispose();
      ns.dispose();
      runtime.executePendingJobs();
      if (overflow) return { ok: false, error: `the module wrote more than ${req.outputBytes} bytes of console output while initializing` };
      return { ok: true, exports: exportsList.sort(), outputBytes: written, initMs: Date.now() - started };
    } finally {
      ctx.dispose();
    }
  } finally {
    runtime.dispose();
  }
}

// Booting (tsx, the engine's WASM) is not part of the module's deadline: say when we are ready.
modulePromise.then(
  () => parentPort?.postMessage({ ready: true }),
  (error: unknown) => parentPort?.postMessage({ ok: false, error: `probe engine failed to load: ${(error as Error).message}` } satisfies ProbeResponse),
);

parentPort?.on('message', (raw: unknown) => {
  probe(raw).then(
    (response) => parentPort?.postMessage(response),
    (error: unknown) => parentPort?.postMessage({ ok: false, error: `probe failed: ${(error as Error).message}` } satisfies ProbeResponse),
  );
});
