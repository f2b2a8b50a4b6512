// The yardstick of the compatibility corpus: a smoke test run in BARE quickjs-ng, without anything
// of ours — no confinement plugin, no entry generation, no static scan, no admission probe, no
// prelude, no globals beyond the engine's own and a console that discards what it is given — with
// `eval` deleted and the Function constructors throwing: the issue's "works in bare quickjs-ng
// with eval and Function deleted". The guest limits are the product's (64 MB heap, 512 KB stack),
// so a difference in the table is never a difference of limits.
//
// Each run gets a runtime and context of its own; the engine's WebAssembly module is made once per
// process and shared (a measurement yardstick, not an isolation boundary). Every handle, context
// and runtime is disposed in `finally`.

import * as esbuild from 'esbuild';
import variant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { MAIN_FIELDS, RESOLVE_CONDITIONS } from '../../compiler/build-options.ts';
import { LIMITS } from '../../../shared/protocol/limits.ts';
import type { SmokeTest } from './libraries.ts';
import { bareEntry, OUTCOME_GLOBAL } from './smoke.ts';

export type BareOutcome =
  | { readonly ok: true; readonly value: unknown; readonly bundleBytes: number; readonly evalMs: number }
  | { readonly ok: false; readonly stage: 'bundle' | 'import' | 'run'; readonly error: string; readonly bundleBytes?: number; readonly evalMs?: number };

/**
 * A console that drops its arguments; `eval` deleted; each Function constructor (plain, async,
 * generator, async generator) replaced by one that throws, keeping its `prototype`, so reading
 * `Function.prototype` works and generating code does not — the product's rule, without its prelude.
 * A constructor that throws rather than a missing global, as in the product, so a library that
 * only reads `Function.prototype` is not failed for it. Every embedder has a console; the
 * product's is captured.
 */
const BARE_SETUP = `
globalThis.console = Object.fromEntries(['log', 'info', 'warn', 'error', 'debug', 'trace'].map((name) => [name, () => undefined]));
delete globalThis.eval;
for (const [label, f] of [['Function', function () {}], ['AsyncFunction', async function () {}], ['GeneratorFunction', function* () {}], ['AsyncGeneratorFunction', async function* () {}]]) {
  const proto = Object.getPrototypeOf(f);
  const blocked = function () { throw new EvalError(label + ' constructor is deleted in this bare engine'); };
  Object.defineProperty(blocked, 'prototype', { value: proto });
  Object.defineProperty(proto, 'constructor', { value: blocked });
  if (label === 'Function') globalThis.Function = blocked;
}
`;

let engine: Promise<QuickJSWASMModule> | undefined;

/**
 * Plain esbuild over the installed files (`resolveDir` holds or sits under the node_modules that
 * has the library). The entry (import lines + body) is bundled the way one bundles for a browser
 * (platform browser: package.json `browser` maps honoured, `process.env.NODE_ENV` defined), with
 * the compiler's conditions and main fields.
 */
export async function bareBundle(smoke: SmokeTest, specifier: string, resolveDir: string): Promise<{ ok: true; code: string } | { ok: false; error: string }> {
  try {
    const built = await esbuild.build({
      stdin: { contents: bareEntry(smoke, specifier), resolveDir, sourcefile: 'corpus-entry.mjs', loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: [...RESOLVE_CONDITIONS],
      mainFields: [...MAIN_FIELDS],
      resolveExtensions: ['.mjs', '.js', '.cjs', '.json'],
      // The whole library, as the product's module holds it: not just what the smoke test uses.
      treeShaking: false,
      logLevel: 'silent',
    });
    return { ok: true, code: built.outputFiles[0]?.text ?? '' };
  } catch (error) {
    const errors = (error as { errors?: { text: string }[] }).errors;
    return { ok: false, error: errors?.length ? errors.map((e) => e.text).join('; ') : String(error) };
  }
}

/**
 * Evaluates a bundled entry as a module in a fresh bare quickjs-ng (quickjs-emscripten-core with
 * the release variant the product uses) and reads the outcome it left. The engine module is
 * shared, so the times are those of a warmed engine, comparable with the product's warm runs.
 */
export async function runBareBundle(code: string, deadlineMs: number = LIMITS.guestTimeoutMs): Promise<BareOutcome> {
  const bundleBytes = Buffer.byteLength(code);
  engine ??= newQuickJSWASMModuleFromVariant(variant);
  const runtime = (await engine).newRuntime();
  try {
    runtime.setMemoryLimit(LIMITS.guestMemoryBytes);
    runtime.setMaxStackSize(LIMITS.guestStackBytes);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + deadlineMs));
    const context = runtime.newContext();
    try {
      const hardened = context.evalCode(BARE_SETUP, 'corpus-setup.js');
      if (hardened.error) {
        const error = context.dump(hardened.error) as unknown;
        hardened.error.dispose();
        throw new Error(`bare setup failed: ${JSON.stringify(error)}`);
      }
      hardened.value.dispose();
      const started = performance.now();
      const evaluated = context.evalCode(code, 'corpus-entry.mjs', { type: 'module' });
      if (evaluated.error) {
        const error = describe(context.dump(evaluated.error));
        evaluated.error.dispose();
        return { ok: false, stage: 'import', error, bundleBytes, evalMs: performance.now() - started };
      }
      // A module's evaluation is a promise in quickjs-ng: settle it and the body's own promise.
      const moduleResult = evaluated.value;
      try {
        for (let i = 0; i < 10_000; i++) {
          const jobs = runtime.executePendingJobs();
          if (jobs.error) {
            const error = describe(context.dump(jobs.error));
            jobs.error.dispose();
            return { ok: false, stage: 'run', error, bundleBytes, evalMs: performance.now() - started };
          }
          if (jobs.value === 0) break;
        }
        if (context.typeof(moduleResult) === 'object') {
          const state = context.getPromiseState(moduleResult);
          if (state.type === 'rejected') {
            const error = describe(context.dump(state.error));
            state.error.dispose();
            return { ok: false, stage: 'import', error, bundleBytes, evalMs: performance.now() - started };
          }
          if (state.type === 'fulfilled' && state.notAPromise === false) state.value.dispose();
        }
      } finally {
        moduleResult.dispose();
      }
      const evalMs = performance.now() - started;
      const outcomeHandle = context.getProp(context.global, OUTCOME_GLOBAL);
      const outcome = context.dump(outcomeHandle) as { ok: boolean; json?: string; error?: string } | undefined;
      outcomeHandle.dispose();
      if (!outcome) return { ok: false, stage: 'run', error: 'the smoke test never settled (no pending job was left to run it)', bundleBytes, evalMs };
      if (!outcome.ok) return { ok: false, stage: 'run', error: outcome.error ?? 'unknown error', bundleBytes, evalMs };
      return { ok: true, value: JSON.parse(outcome.json ?? 'null') as unknown, bundleBytes, evalMs };
    } finally {
      context.dispose();
    }
  } finally {
    runtime.dispose();
  }
}

function describe(dumped: unknown): string {
  if (dumped && typeof dumped === 'object') {
    const { name, message, stack } = dumped as { name?: unknown; message?: unknown; stack?: unknown };
    const head = `${typeof name === 'string' ? name : 'Error'}: ${typeof message === 'string' ? message : JSON.stringify(dumped)}`;
    return typeof stack === 'string' && stack ? `${head}\n${stack}` : head;
  }
  return String(dumped);
}

/** Bundle and run one smoke test bare, `times` times on fresh contexts: the first failure, or the last value with the median time. */
export async function runBare(smoke: SmokeTest, specifier: string, resolveDir: string, times = 3): Promise<BareOutcome> {
  const bundle = await bareBundle(smoke, specifier, resolveDir);
  if (!bundle.ok) return { ok: false, stage: 'bundle', error: bundle.error };
  const samples: number[] = [];
  let last: BareOutcome | undefined;
  for (let i = 0; i < times; i++) {
    last = await runBareBundle(bundle.code);
    if (!last.ok) return last;
    samples.push(last.evalMs);
  }
  if (!last?.ok) throw new RangeError('runBare needs times >= 1');
  samples.sort((a, b) => a - b);
  return { ...last, evalMs: samples[Math.floor(samples.length / 2)]! };
}
