// The per-run WASM dispatcher: the one function a run's facades can reach, and the actual
// security boundary of the WASM bridge (hiding the binding is only defence in depth). It is built
// from the run's resolution, so it knows exactly the WASM modules the node declared and nothing
// else; every call is checked for module identity, export allowlist (by the manifest's `as`
// name), argument count and scalar types, and the invocation's budgets, before the pool port
// runs anything. Engine-neutral: the Node worker pool and a browser Web Worker pool both sit
// behind `WasmPoolPort`, and the kernel binds `dispatcher.bridge` as WASM_BRIDGE_GLOBAL.
//
// Invariant: the budgets, run-wide and per module, are hard limits, not best effort (BudgetMeter).

import type { ExecutableModule, ExecutableWasm, WasmExportSignature } from '../../protocol/catalog.ts';
import type { ErrorCode } from '../../protocol/codes.ts';
import { LIMITS } from '../../protocol/limits.ts';
import { isByteType, type WasmBudgets } from '../../protocol/manifest.ts';
import { fail, ok, type Failure, type Result } from '../../protocol/result.ts';
import type { CallAbi, CallArg } from './canonical-abi.mjs';
import { checkWasmArguments, convertWasmResult, type WasmValue } from './wasm-scalars.ts';

// Strict, as the canonical ABI is: bytes that are not UTF-8 fail the call. And a leading byte order
// mark is a character like any other (the canonical ABI decodes without BOM sniffing), so it is
// kept, not stripped as a TextDecoder does by default: "\uFEFFab" round-trips.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `callNow`'s answer when no worker is free to take the call at once (nothing was posted). */
export const NO_FREE_LANE = 'no-free-lane';

/** What a pool reports for one call: the result, and how long the worker spent on it. */
export type WasmPoolReply = Result<number | undefined | Uint8Array> & { readonly runMs: number };

/**
 * The pool as the dispatcher sees it. `bytes` identify the module by content (the pool hashes and
 * caches compiled modules); `exportName` is the name inside the binary; `args` are already
 * checked. A call must settle (never reject) and honour `signal` by stopping the call.
 */
export interface WasmPoolPort {
  call(request: WasmPoolRequest): Promise<WasmPoolReply>;
  /**
   * Optional: the call answered before this returns, blocking the thread at most `ms` for it;
   * undefined when it did not answer in time (the caller then aborts `signal`, which stops it);
   * `NO_FREE_LANE` at once, with nothing posted, when no worker is free to take it now — unless
   * `queue`, when it waits for one like any call (within the same `ms`).
   */
  callNow?(request: WasmPoolRequest, ms: number, queue: boolean): WasmPoolReply | typeof NO_FREE_LANE | undefined;
}

export interface WasmPoolRequest {
  readonly bytes: Uint8Array;
  readonly exportName: string;
  /** Numbers, and bytes for `bytes`/`string` parameters. */
  readonly args: readonly CallArg[];
  /** A typed export's lowering (canonical-abi.mjs); absent for a scalar export. */
  readonly abi?: CallAbi;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** The guest-visible reply, exactly what `wasmBridgeModuleSource()` expects. */
export type WasmBridgeReply = { readonly ok: true; readonly value: WasmValue } | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

/** The function bound as the bridge global: `(moduleId, exportName, args)`; never rejects. */
export type WasmBridgeFunction = (moduleId: unknown, exportName: unknown, args: unknown) => Promise<WasmBridgeReply>;

export interface EffectiveBudgets {
  readonly callTimeoutMs: number;
  readonly concurrency: number;
  readonly calls: number;
  readonly aggregateMs: number;
  readonly callInputBytes: number;
  readonly callOutputBytes: number;
  readonly inputBytes: number;
  readonly outputBytes: number;
}

export const DEFAULT_WASM_BUDGETS: EffectiveBudgets = {
  callTimeoutMs: LIMITS.wasmCallTimeoutMs,
  concurrency: LIMITS.wasmConcurrency,
  calls: LIMITS.wasmCallsPerInvocation,
  aggregateMs: LIMITS.wasmAggregateMs,
  callInputBytes: LIMITS.wasmCallInputBytes,
  callOutputBytes: LIMITS.wasmCallOutputBytes,
  inputBytes: LIMITS.wasmInputBytesPerInvocation,
  outputBytes: LIMITS.wasmOutputBytesPerInvocation,
};

/** A manifest's budgets over the defaults: each value can only go down. */
export function effectiveBudgets(declared: WasmBudgets | undefined, base: EffectiveBudgets = DEFAULT_WASM_BUDGETS): EffectiveBudgets {
  const lower = (value: number | undefined, cap: number) => (value === undefined || !(value >= 1) ? cap : Math.min(Math.floor(value), cap));
  return {
    callTimeoutMs: lower(declared?.callTimeoutMs, base.callTimeoutMs),
    concurrency: lower(declared?.concurrency, base.concurrency),
    calls: lower(declared?.calls, base.calls),
    aggregateMs: lower(declared?.aggregateMs, base.aggregateMs),
    callInputBytes: lower(declared?.callInputBytes, base.callInputBytes),
    callOutputBytes: lower(declared?.callOutputBytes, base.callOutputBytes),
    inputBytes: lower(declared?.inputBytes, base.inputBytes),
    outputBytes: lower(declared?.outputBytes, base.outputBytes),
  };
}

/**
 * Counters of one budget scope (the run, or one module within it). Budgets are layered. Run-wide:
 * the host defaults (concurrency 2, 256 calls, 30 s of WASM time). Per module: the same counters
 * against that module's manifest `budgets`, which can only lower the defaults (the manifest schema
 * caps them and `effectiveBudgets` takes the minimum). "WASM time" is the sum of the calls' run
 * times as the pool reports them (instantiate + call in the worker; queueing behind other runs is
 * not charged). To keep the aggregate hard rather than best-effort, each call's timeout is capped
 * by what is left of it after the time reserved by calls already in flight; a call stopped by that
 * cap fails as `wasm-budget-time`.
 */
class BudgetMeter {
  calls = 0;
  inFlight = 0;
  usedMs = 0;
  reservedMs = 0;
  /** Bytes passed in so far (counted when a call starts: they are copied for it). */
  inBytes = 0;
  /** Bytes returned so far, and the allowance calls in flight hold (so the output cap is hard too). */
  outBytes = 0;
  reservedOut = 0;
  constructor(
    readonly budgets: EffectiveBudgets,
    readonly label: string,
  ) {}

  /** Why a new call may not start, if it may not. */
  refuse(): Failure | undefined {
    const b = this.budgets;
    if (this.calls >= b.calls)
      return fail('wasm-budget-calls', `${this.label} may make at most ${b.calls} WASM call${b.calls === 1 ? '' : 's'} per run (budget: calls)`);
    if (this.inFlight >= b.concurrency) {
      return fail(
        'wasm-budget-concurrency',
        `${this.label} may have at most ${b.concurrency} WASM call${b.concurrency === 1 ? '' : 's'} in flight at once (budget: concurrency)`,
      );
    }
    if (this.remainingMs() <= 0) return fail('wasm-budget-time', `${this.label} has used its ${b.aggregateMs} ms of WASM time for this run (budget: time)`);
    return undefined;
  }

  remainingMs(): number {
    return this.budgets.aggregateMs - this.usedMs - this.reservedMs;
  }

  /** Why `bytes` more input may not be passed, if it may not. */
  refuseInput(bytes: number): Failure | undefined {
    const b = this.budgets;
    if (bytes > b.callInputBytes)
      return fail(
        'wasm-budget-bytes',
        `${this.label} may take at most ${b.callInputBytes} bytes per WASM call; this call passes ${bytes} (budget: input bytes)`,
      );
    if (this.inBytes + bytes > b.inputBytes) {
      return fail(
        'wasm-budget-bytes',
        `${this.label} may pass at most ${b.inputBytes} bytes into WASM per run; ${this.inBytes} are used and this call passes ${bytes} (budget: input bytes)`,
      );
    }
    return undefined;
  }

  /** The most bytes a call may return now: its per-call cap, within what is left of the run's. */
  outputAllowance(): number {
    return Math.max(0, Math.min(this.budgets.callOutputBytes, this.budgets.outputBytes - this.outBytes - this.reservedOut));
  }

  timeFailure(): Failure {
    return fail('wasm-budget-time', `${this.label} ran out of its ${this.budgets.aggregateMs} ms of WASM time for this run (budget: time)`);
  }
}

interface DeclaredModule {
  readonly moduleId: string;
  readonly displayName: string;
  readonly wasm: ExecutableWasm;
  readonly exports: ReadonlyMap<string, DeclaredExport>;
  readonly meter: BudgetMeter;
}

export interface WasmUsage {
  readonly calls: number;
  readonly inFlight: number;
  readonly wasmMs: number;
}

export interface WasmDispatcherOptions {
  /** Run-wide budgets; defaults to the host's. Values above the host's are capped. */
  readonly budgets?: WasmBudgets;
}

export interface WasmDispatcher {
  /** Bind this as the bridge global for the run. Never rejects. */
  readonly bridge: WasmBridgeFunction;
  /**
   * Present when the pool can answer at once (`WasmPoolPort.callNow`): the same call, answered
   * before it returns, waiting at most `ms`; undefined when it could not be answered in time (the
   * call is stopped, and nothing of it is counted), or `NO_FREE_LANE` when no lane could take it
   * at once. For a run that never waits (a nested run).
   */
  readonly callNow?: (moduleId: unknown, exportName: unknown, args: unknown, ms: number, queue: boolean) => WasmBridgeReply | typeof NO_FREE_LANE | undefined;
  /** Counters for the run's receipt. */
  usage(): WasmUsage;
  /** The run is over: calls in flight are stopped and later calls are refused. Idempotent. */
  close(): void;
}

/** An export as the dispatcher serves it: its signature, and what its calls need, found once. */
interface DeclaredExport {
  readonly sig: WasmExportSignature;
  /** The canonical-ABI path: bytes or strings to lower, or a `cabi_post_` to call after the result. */
  readonly typed: boolean;
  /** A bytes/string result, lifted from a return area (undefined for a scalar or void result). */
  readonly byteResult: 'bytes' | 'string' | undefined;
}

function declaredExport(sig: WasmExportSignature): DeclaredExport {
  const result = sig.results[0];
  const byteResult = result !== undefined && isByteType(result) ? result : undefined;
  return { sig, typed: byteResult !== undefined || sig.params.some(isByteType) || sig.post !== undefined, byteResult };
}

/** What the dispatcher reads of a resolution's modules. */
export type DispatcherModules = Readonly<Record<string, Pick<ExecutableModule, 'moduleId' | 'kind' | 'displayName' | 'wasm'>>>;

/** Build the dispatcher for one run from its resolution; only its WASM modules are served. */
export function createWasmDispatcher(
  resolution: { readonly modules: DispatcherModules },
  pool: WasmPoolPort,
  options: WasmDispatcherOptions = {},
): WasmDispatcher {
  const run = new BudgetMeter(effectiveBudgets(options.budgets), 'this run');
  const modules = new Map<string, DeclaredModule>();
  for (const mod of Object.values(resolution.modules)) {
    if (mod.kind !== 'wasm' || !mod.wasm) continue;
    const exports = new Map<string, DeclaredExport>();
    for (const sig of mod.wasm.exports) exports.set(sig.as, declaredExport(sig));
    const budgets = effectiveBudgets(mod.wasm.budgets, run.budgets);
    modules.set(mod.moduleId, {
      moduleId: mod.moduleId,
      displayName: mod.displayName,
      wasm: mod.wasm,
      exports,
      meter: new BudgetMeter(budgets, `\`${mod.displayName}\``),
    });
  }
  const abort = new AbortController();

  /** A call checked and its budgets reserved (`start`); `finish` turns the pool's reply into the guest's, `cancel` gives the reservation back. */
  interface Started {
    readonly request: WasmPoolRequest;
    finish(reply: WasmPoolReply): WasmBridgeReply;
    cancel(): void;
  }

  function start(moduleId: unknown, exportName: unknown, args: unknown): Started | Failure {
    if (abort.signal.aborted) return fail('wasm-not-declared', 'the run has ended; its WASM modules can no longer be called');
    const mod = typeof moduleId === 'string' ? modules.get(moduleId) : undefined;
    if (!mod) return fail('wasm-not-declared', 'that WASM module is not declared for this run');
    const declared = typeof exportName === 'string' ? mod.exports.get(exportName) : undefined;
    if (!declared) {
      const name = typeof exportName === 'string' && exportName.length <= 128 ? `\`${exportName}\`` : 'that export';
      return fail('wasm-not-declared', `${name} is not an export of \`${mod.displayName}\``);
    }
    const { sig, typed, byteResult } = declared;
    const checked = checkWasmArguments(sig, args);
    if (!checked.ok) return checked;
    let inputBytes = 0;
    for (const arg of checked.value) if (typeof arg !== 'number') inputBytes += arg.length;

    const refused = run.refuse() ?? mod.meter.refuse() ?? (typed ? (run.refuseInput(inputBytes) ?? mod.meter.refuseInput(inputBytes)) : undefined);
    if (refused) return refused;
    const resultType = sig.results[0];
    // Output is capped before it is copied: the call may return what is left of both allowances.
    const maxResultBytes = byteResult ? Math.min(run.outputAllowance(), mod.meter.outputAllowance()) : 0;
    // The timeout is the per-call limit, capped by what is left of both time budgets.
    const timeBound = Math.min(run.remainingMs(), mod.meter.remainingMs());
    const timeoutMs = Math.max(1, Math.min(mod.meter.budgets.callTimeoutMs, Math.floor(timeBound)));
    const cappedByBudget = timeoutMs < mod.meter.budgets.callTimeoutMs;
    for (const m of [run, mod.meter]) {
      m.calls++;
      m.inFlight++;
      m.reservedMs += timeoutMs;
      m.inBytes += inputBytes;
      m.reservedOut += maxResultBytes;
    }
    const release = () => {
      for (const m of [run, mod.meter]) {
        m.inFlight--;
        m.reservedMs -= timeoutMs;
        m.reservedOut -= maxResultBytes;
      }
    };
    const abi: CallAbi | undefined = typed
      ? { name: sig.as, params: sig.params, ...(resultType ? { result: resultType } : {}), ...(sig.post ? { post: sig.post } : {}), maxResultBytes }
      : undefined;
    return {
      request: { bytes: mod.wasm.bytes, exportName: sig.wasm, args: checked.value, ...(abi ? { abi } : {}), timeoutMs, signal: abort.signal },
      cancel: () => {
        release();
        for (const m of [run, mod.meter]) {
          m.calls--;
          m.inBytes -= inputBytes;
        }
      },
      finish: (reply) => {
        release();
        const spent = Number.isFinite(reply.runMs) && reply.runMs >= 0 ? Math.min(reply.runMs, timeoutMs) : timeoutMs;
        run.usedMs += spent;
        mod.meter.usedMs += spent;
        if (!reply.ok) {
          if (reply.code === 'wasm-timeout') {
            if (cappedByBudget) return (run.remainingMs() <= mod.meter.remainingMs() ? run : mod.meter).timeFailure();
            // The pool names the binary's export; the guest knows it by its `as` name.
            return fail('wasm-timeout', `\`${sig.as}\` ran longer than its ${timeoutMs} ms limit and was stopped`);
          }
          if (reply.code === 'wasm-trap') return fail('wasm-trap', `\`${sig.as}\` trapped: ${reply.message}`);
          return fail(reply.code, reply.message);
        }
        if (byteResult) return lift(sig.as, byteResult, reply.value, maxResultBytes, mod.meter);
        const value = convertWasmResult(sig, reply.value);
        return value.ok ? ok(value.value) : value;
      },
    };
  }

  /** A bytes/string result as the guest gets it, counted against the output budgets. */
  function lift(as: string, type: 'bytes' | 'string', value: unknown, maxBytes: number, meter: BudgetMeter): WasmBridgeReply {
    if (!(value instanceof Uint8Array) || value.length > maxBytes) {
      return fail('internal', `\`${as}\` answered something other than at most ${maxBytes} bytes; the WASM worker misbehaved`);
    }
    for (const m of [run, meter]) m.outBytes += value.length;
    if (type === 'bytes') return ok(value);
    try {
      return ok(utf8.decode(value));
    } catch {
      return fail('wasm-trap', `\`${as}\` returned a string that is not valid UTF-8`);
    }
  }

  async function call(moduleId: unknown, exportName: unknown, args: unknown): Promise<WasmBridgeReply> {
    const started = start(moduleId, exportName, args);
    if (!('request' in started)) return started;
    let reply: WasmPoolReply;
    try {
      reply = await pool.call(started.request);
    } catch (error) {
      // A port that rejects is a bug in the port; the guest still gets a tagged answer.
      reply = { ...fail('internal', `the WASM pool failed: ${error instanceof Error ? error.message : String(error)}`), runMs: started.request.timeoutMs };
    }
    return started.finish(reply);
  }

  const callNow = (moduleId: unknown, exportName: unknown, args: unknown, ms: number, queue: boolean): WasmBridgeReply | typeof NO_FREE_LANE | undefined => {
    const started = start(moduleId, exportName, args);
    if (!('request' in started)) return started;
    const reply = pool.callNow!(started.request, ms, queue);
    if (reply !== undefined && reply !== NO_FREE_LANE) return started.finish(reply);
    started.cancel();
    return reply;
  };

  return {
    bridge: call,
    ...(pool.callNow ? { callNow } : {}),
    usage: () => ({ calls: run.calls, inFlight: run.inFlight, wasmMs: run.usedMs }),
    close: () => abort.abort(),
  };
}
