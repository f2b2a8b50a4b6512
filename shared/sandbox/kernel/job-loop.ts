// The job loop: drives the guest's promises until the entry module settles, sleeping only while
// nothing in the sandbox can run and a host call is still out, and turns the settled value into
// JSON the host can carry. The deadline is enforced twice — the engine's interrupt stops running
// guest code, the injected timer ends a wait on host calls that never answer.

import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, Scope } from 'quickjs-emscripten-core';
import { LIMITS } from '../../protocol/limits.ts';
import { jsonTextDeeperThan } from '../../protocol/json-depth.ts';
import type { GuestErrorInfo } from './guest-errors.ts';
import type { Outcome, RunState } from './run-state.ts';

/** Starts a one-shot timer and returns what cancels it (see KernelPowers.timer). */
export type Timer = (ms: number, fire: () => void) => () => void;

/** The longest the job loop blocks at a time; past it, timers (a lane's call timeout) get to run. */
const BLOCK_SLICE_MS = 1;

export const RESULT_TOO_DEEP: Outcome = {
  ok: false,
  code: 'result-invalid',
  message: `The code's result is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed out of the sandbox may have.`,
};

export function timeoutMessage(timeoutMs: number): string {
  return `The code ran longer than its ${timeoutMs} ms time limit and was stopped.`;
}

export interface JobLoopRun {
  readonly ctx: QuickJSContext;
  readonly runtime: QuickJSRuntime;
  /** Handles taken here (the namespace, the default export) are freed with the run. */
  readonly scope: Scope;
  readonly state: RunState;
  /** The entry module's evaluation promise. */
  readonly promise: QuickJSHandle;
  /** The prelude's JSON serializer (bytes and number tags understood). */
  readonly serialize: QuickJSHandle;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly timer: Timer;
  readonly block: ((ms: number) => boolean) | undefined;
  /** What a thrown or rejected guest value means (consumes the handle). */
  readonly failure: (handle: QuickJSHandle) => Outcome;
}

export async function runJobLoop(run: JobLoopRun): Promise<Outcome> {
  const { state } = run;
  // One deadline timer per run, armed at the first wait (a timer and a Promise.race per wait cost
  // more than the rest of an instant host call's round trip, measured).
  let cancelDeadline: (() => void) | undefined;
  try {
    for (;;) {
      const outcome = drive(run);
      if (outcome) return outcome;
      const remaining = run.deadline - run.now();
      cancelDeadline ??= run.timer(remaining, () => state.expire());
      run.block?.(Math.min(remaining, BLOCK_SLICE_MS));
      const expired = await state.wait();
      if (expired) return timedOut(run);
    }
  } finally {
    cancelDeadline?.();
  }
}

/**
 * The job loop of a run that never waits: a nested run (hosting/kernel-worker-loop.ts), whose host
 * answers are in hand (`RunState.answered`) or never come. Where it would wait, it ends with
 * WOULD_WAIT, which its host discards.
 */
export function runJobLoopNow(run: JobLoopRun): Outcome {
  return drive(run) ?? WOULD_WAIT;
}

export const WOULD_WAIT: Outcome = { ok: false, code: 'internal', message: 'The run would wait on a host call where it may not.' };

const timedOut = (run: JobLoopRun): Outcome => ({ ok: false, code: 'timeout', message: timeoutMessage(run.timeoutMs) });

/** Runs the guest's jobs until the entry module settles (its outcome) or nothing can run until a host call settles (undefined). */
function drive(run: JobLoopRun): Outcome | undefined {
  const { ctx, runtime, scope, state, promise } = run;
  for (;;) {
    if (state.interrupted) return timedOut(run);
    const promiseState = ctx.getPromiseState(promise);
    if (promiseState.type === 'fulfilled') return serializeResult(run, scope.manage(promiseState.value));
    if (promiseState.type === 'rejected') return run.failure(promiseState.error);
    if (state.answered.length > 0) {
      for (const hand of state.answered.splice(0)) hand();
      continue;
    }
    if (runtime.hasPendingJob()) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return run.failure(jobs.error);
      continue;
    }
    if (state.inflight.size === 0) {
      return { ok: false, code: 'runtime-error', message: 'The code is waiting for a promise that can never settle (nothing is pending in the sandbox).' };
    }
    if (run.deadline - run.now() <= 0) return timedOut(run);
    return undefined;
  }
}

function serializeResult(run: JobLoopRun, namespace: QuickJSHandle): Outcome {
  const { ctx, state } = run;
  const value = run.scope.manage(ctx.getProp(namespace, 'default'));
  // A number or nothing answers as the serializer would (JSON.stringify consults no toJSON and no
  // replacer result differs for them: NaN and ±Infinity become null, -0 becomes 0, undefined
  // null), without a call into the guest and a JSON round trip (~30 µs of a trivial run).
  const kind = ctx.typeof(value);
  if (kind === 'number') {
    const number = ctx.getNumber(value);
    return { ok: true, value: Number.isFinite(number) ? number + 0 : null };
  }
  if (kind === 'undefined') return { ok: true, value: null };
  // A result nested thousands deep can exhaust the host's stack inside the engine's JSON
  // (a browser worker's, measured at 5,000): the flag turns that into result-invalid.
  state.serializingResult = true;
  const serialized = ctx.callFunction(run.serialize, ctx.undefined, value);
  state.serializingResult = false;
  if (serialized.error) {
    const info = ctx.dump(serialized.error) as GuestErrorInfo;
    serialized.error.dispose();
    if (state.interrupted) return { ok: false, code: 'timeout', message: timeoutMessage(run.timeoutMs) };
    return {
      ok: false,
      code: 'result-invalid',
      message: `The code's result cannot be passed out of the sandbox as JSON: ${info !== null && typeof info === 'object' && typeof info.message === 'string' ? info.message : String(info)}.`,
    };
  }
  const text = ctx.typeof(serialized.value) === 'string' ? ctx.getString(serialized.value) : 'null';
  serialized.value.dispose();
  // A deeper value could not be posted to the host thread (structured clone runs out of stack).
  if (jsonTextDeeperThan(text, LIMITS.jsonDepth)) return RESULT_TOO_DEEP;
  return { ok: true, value: JSON.parse(text) as unknown };
}
