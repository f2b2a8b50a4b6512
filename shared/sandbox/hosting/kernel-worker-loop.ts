// The worker side of a kernel host, one loop for both: the Node pool's worker threads
// (electron/runtime/sandbox/sandbox-worker.ts) and the browser's Web Worker
// (renderer/runner/kernel-worker.ts) wire their port, engine and extras into it; the host side is
// kernel-host-core.ts. Invariant: a worker runs one run at a time, each in a sandbox no run has
// touched (sandbox-supply.ts), except a run sent nested, which runs at the current run's interrupt
// poll in a sandbox of its own, its host calls answered there (blocking); one that arrives through
// the event loop is given back untouched. Host calls wait per run, so nothing another run does can
// lose them, and every message that cannot be posted becomes a tagged failure.

import { SandboxSupply, type SuppliedSandbox } from '../supply/sandbox-supply.ts';
import { runNeedsWasm, runPrepared, runPreparedNow, timeoutMessage, type KernelOutcome, type RunPowers } from '../kernel/kernel.ts';
import { emptyReceipt, type HostCallResult, type KernelRunRequest } from '../../protocol/run.ts';
import type { FromKernelWorker, ToKernelWorker } from './kernel-worker-messages.ts';
import { NO_FREE_LANE, type WasmDispatcher } from '../wasm/wasm-dispatcher.ts';
import { KeptSources } from '../supply/source-cache.ts';
import { refuseGrowth } from '../supply/engine.ts';

/** A run message as every host sends it; a host may extend it (the Node pool's carries a WASM plan). */
export type KernelRunMessage = Extract<ToKernelWorker, { type: 'run' }>;
/** What a worker takes from its host, with the host's own run message `R`. */
export type KernelWorkerMessage<R extends KernelRunMessage> = Exclude<ToKernelWorker, KernelRunMessage> | R;

/** What a worker's environment gives the loop. `R`: the run message its host sends. */
export interface KernelWorkerEnvironment<R extends KernelRunMessage> {
  /** Posts to the host; throws when the message cannot be cloned (the loop turns that into a tagged failure). */
  readonly post: (message: FromKernelWorker) => void;
  /** Who answers host calls, as a call whose arguments cannot be posted says it ("host", "page"). */
  readonly peer: string;
  /** One run's clock and timer, and its interrupt-poll checkpoint where the host holds runs. */
  readonly clock: () => Pick<RunPowers, 'now' | 'timer' | 'checkpoint'>;
  /** The run's WASM dispatcher where WASM calls are answered in the worker; none: they go to the host like the rest. */
  readonly dispatcherFor?: (message: R) => WasmDispatcher | undefined;
  /** Waits on a futex for a WASM lane's reply (KernelPowers' `block`); used only while no host call is waiting. */
  readonly block?: (ms: number) => boolean;
  /**
   * Whether a nested run's WASM calls are answered at once, the thread blocking for its lane
   * (the dispatcher's `callNow`). Without it, a nested run with WASM is given back.
   */
  readonly answersWasmNow?: boolean;
  /**
   * Blocks at most `ms` until the host rings this worker, then takes its mail (a nested run's host
   * answer arrives so). Without it, a nested run is given back at its first capability call.
   */
  readonly waitForMail?: (ms: number) => void;
  /** Whether the host may send runs nested (it holds runs and rings the worker): they get a second sandbox. */
  readonly nesting?: boolean;
  /**
   * Collects garbage on this thread now. Called after a run's answer once engine memories let go
   * have grown by COLLECT_AFTER_GROWN_BYTES in all: they are freed only when collected, and V8
   * collects an idle thread's garbage only after seconds (a memory bomb's 96 MB stayed 8 s).
   */
  readonly collect?: () => void;
}

/**
 * Grown engine memories let go, in all, that make the thread collect: a memory bomb's at once (its
 * memory grew by 80 MB), a run that grew its memory a little not (a collection costs ~8 ms).
 */
export const COLLECT_AFTER_GROWN_BYTES = 32 * 1024 * 1024;

/**
 * A nested run's budget: past either, it is given back (to run as usual, not nested). About 1.5 ms
 * of guest code: a short run makes hardly any polls, and one that spins wastes little before it is
 * given back.
 */
const NESTED_POLLS = 10;
/** The longest one wait for a nested run's host answer lasts before the mail is read again. */
const MAIL_SLICE_MS = 5;
const NESTED_MS = 20;

const never = () => new Promise<HostCallResult>(() => undefined);
const noTimer = () => () => undefined;
const now = () => performance.now();

export class KernelWorkerLoop<R extends KernelRunMessage> {
  readonly #env: KernelWorkerEnvironment<R>;
  #sandboxes: SandboxSupply | undefined;
  #nestedSandboxes: SandboxSupply | undefined;
  /** Module sources this worker keeps, so runs need not carry them again (source-cache.ts). */
  readonly #kept = new KeptSources();
  /** Host calls waiting for the host's answer, by call id, with the run that made them. */
  readonly #waiting = new Map<number, { readonly runId: number; readonly resolve: (result: HostCallResult) => void }>();
  #nextCallId = 1;
  /** The run in progress, from its start until its answer is posted: none other starts meanwhile (nested runs run at its polls). */
  #current: number | undefined;
  /** Set once the first sandbox is ready: a run that arrives before is dropped (hosts send runs only to a worker that said `ready`). */
  #ready = false;
  readonly #block: ((ms: number) => boolean) | undefined;
  /** Growth of the engine memories let go since the thread last collected (see `collect`). */
  #grownFreed = 0;

  constructor(env: KernelWorkerEnvironment<R>) {
    this.#env = env;
    const block = env.block;
    // Nothing but WASM in flight: wait for a lane's reply on a futex rather than an event-loop turn.
    this.#block = block ? (ms) => this.#waiting.size === 0 && block(ms) : undefined;
  }

  /** Whether `boot` was called (the browser worker boots on its first `init`). */
  get booted(): boolean {
    return this.#sandboxes !== undefined;
  }

  /**
   * Compiles the engine once and prepares the first sandbox, then posts `ready`. Rejects when the
   * engine cannot load, before `ready`: the environment reports that as its worker's failed start.
   */
  async boot(compile: () => Promise<WebAssembly.Module>): Promise<void> {
    const compiled = compile();
    const onGrownMemoryFreed = (bytes: number) => (this.#grownFreed += bytes);
    const sandboxes = new SandboxSupply(() => compiled, { onGrownMemoryFreed });
    this.#sandboxes = sandboxes;
    await sandboxes.prepare();
    this.#ready = true;
    this.#post({ type: 'ready' });
    if (!this.#env.nesting) return;
    // Made once the worker is ready, while it waits for its first run (a nested run arriving before finds none and is given back).
    this.#nestedSandboxes = new SandboxSupply(() => compiled, { onGrownMemoryFreed });
    void this.#nestedSandboxes.prepare(false).catch(() => undefined);
    // Runs with WASM may be sent nested where the environment answers their calls at once.
    if (this.#env.answersWasmNow) void this.#nestedSandboxes.prepare(true).catch(() => undefined);
  }

  /** A message the event loop delivered, parsed by the environment (undefined: malformed, dropped). `init` is the environment's. */
  receive(message: KernelWorkerMessage<R> | undefined): void {
    if (!message || message.type === 'init') return;
    if (message.type === 'host-result') return this.#answerCall(message.runId, message.callId, message.result as HostCallResult);
    if (!this.#ready) return;
    const run = message;
    if (!this.#kept.fill(run.request, run.sources)) return this.#post({ type: 'resend', runId: run.runId });
    if (this.#current !== undefined) {
      // Only a run sent nested can arrive while a run is in progress (the host sends a run of its
      // own only to an idle worker), and here it arrived outside a poll: the run in progress awaits
      // a host call or a WASM lane. It is given back untouched, to run elsewhere or nested later.
      if (!run.nested) throw new Error(`kernel worker: run ${run.runId} arrived while run ${this.#current} was in progress`);
      return this.#post({ type: 'requeue', runId: run.runId, nestable: true, notAtPoll: true });
    }
    // A run sent nested that arrives here, with no run in progress, found this worker idle: it runs
    // as usual (the host made it this worker's next run when the run before answered).
    void this.#runToAnswer(run.runId, run.request, this.#env.dispatcherFor?.(run));
  }

  /**
   * A message taken at the current run's interrupt poll (the host rang, see run-hold.ts): a run sent
   * nested runs now, to its end; a host answer is delivered (its run sees it once the event loop
   * turns). False for anything else: the environment hands it to `receive` from the event loop.
   */
  receiveAtPoll(message: KernelWorkerMessage<R> | undefined): boolean {
    if (message?.type === 'run' && message.nested) {
      const run = message;
      if (this.#kept.fill(run.request, run.sources)) this.#runNested(run);
      else this.#post({ type: 'resend', runId: run.runId });
      return true;
    }
    if (message?.type !== 'host-result') return false;
    this.#answerCall(message.runId, message.callId, message.result as HostCallResult);
    return true;
  }

  /** Hand a waiting call its answer (the call must be the run's own). */
  #answerCall(runId: number, callId: number, result: HostCallResult): void {
    const call = this.#waiting.get(callId);
    if (!call || call.runId !== runId) return;
    this.#waiting.delete(callId);
    call.resolve(result);
  }

  /** Post to the host. A message that cannot be cloned becomes a tagged failure at once, never silence. */
  #post(message: FromKernelWorker): void {
    try {
      this.#env.post(message);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (message.type === 'done') {
        const { logs, receipt } = message.result;
        this.#env.post({
          ...message,
          result: { ok: false, code: 'result-invalid', message: `The code's result could not be passed out of the sandbox (${why}).`, logs, receipt },
        });
      } else if (message.type === 'host-call') {
        this.#answerCall(message.runId, message.callId, {
          ok: false,
          code: 'invalid-data',
          message: `The arguments of ${message.name} could not be passed to the ${this.#env.peer} (${why}).`,
        });
      } else throw error;
    }
  }

  /**
   * Runs a run sent nested inside the current run's interrupt poll, in a sandbox of its own
   * (restored like the other after it; no run sees another's). Its WASM calls are answered on this
   * worker's lanes while it blocks (issue 30: ordinary runs that await an export waited out a storm
   * of long runs for a worker of their own). Past its budget, or with no lane free, it is given back
   * and the host runs it again — nothing of the try has left the sandbox (WASM calls are pure; its
   * console entries are kept, not streamed). At its first capability call it commits: the host
   * answers it here, and it runs to its end within its own limit. An outcome that depends on this
   * thread's stack (a stack overflow, with the long run's frames below it) is given back too, so
   * running nested never changes a result.
   */
  #runNested(run: R): void {
    const { runId, request } = run;
    const withWasm = runNeedsWasm(request);
    const { answersWasmNow, waitForMail } = this.#env;
    if (withWasm && !answersWasmNow) return this.#post({ type: 'requeue', runId, nestable: false });
    // Its module set's image if this worker has one free (the run in progress uses another), else a plain nested sandbox.
    const image = this.#sandboxes?.takeImageNow(withWasm, request);
    const supply = image ? this.#sandboxes : this.#nestedSandboxes;
    const supplied = image ?? this.#nestedSandboxes?.takeNow(withWasm);
    if (!supplied || !supply) return this.#post({ type: 'requeue', runId, nestable: true });
    // Its sandbox's memory stays at its size until it commits, so the sandbox can be restored (engine.ts `refuseGrowth`).
    refuseGrowth(supplied.memory, true);
    const dispatcher = withWasm ? this.#env.dispatcherFor?.(run) : undefined;
    const start = now();
    const deadline = start + request.timeoutMs;
    // Why the try was given up, which says where the run may go next (see the requeue below).
    let givenUp: 'spun' | 'slow' | 'no-lane' | 'own' | undefined;
    // Set at its first capability call: it has had an effect outside the sandbox, so it is never
    // given back from then on; it runs here to its end, within its own time limit.
    let committed = false;
    // A committed run reached its time limit waiting for an answer.
    let expired = false;
    let polls = 0;
    const giveUp = (why: NonNullable<typeof givenUp>): undefined => {
      givenUp ??= why;
      return undefined;
    };
    const wasmNow = (moduleId: string, args: readonly unknown[]): HostCallResult | undefined => {
      const callNow = dispatcher?.callNow;
      if (!callNow) return giveUp('own');
      // A committed run waits for a lane like any run, to its own limit; one that may still be
      // given back takes only a free lane, within the nested budget.
      const left = committed ? deadline - now() : NESTED_MS - (now() - start);
      const answer = left > 0 ? callNow(moduleId, args[0], args[1], left, committed) : undefined;
      if (answer !== undefined && answer !== NO_FREE_LANE) return answer;
      if (committed) {
        expired = true;
        return undefined;
      }
      // No lane of this worker free: it may nest elsewhere. Not answered within the nested budget
      // (a spinning export, or a busy machine): it tries again a few times (the host counts), then
      // runs as its own run.
      return giveUp(answer === NO_FREE_LANE ? 'no-lane' : 'slow');
    };
    const capabilityNow = (name: string, args: readonly unknown[]): HostCallResult | undefined => {
      if (!waitForMail) return giveUp('own');
      committed = true;
      // Committed, it runs here to its end as it would alone, with the whole guest limit.
      refuseGrowth(supplied.memory, false);
      let answer: HostCallResult | undefined;
      const callId = this.#nextCallId++;
      this.#waiting.set(callId, { runId, resolve: (result) => (answer = result) });
      this.#post({ type: 'host-call', runId, callId, kind: 'capability', name, args: [...args] });
      while (answer === undefined) {
        const left = deadline - now();
        if (left <= 0) {
          expired = true;
          this.#waiting.delete(callId);
          break;
        }
        // In slices: the mail is read again after each, so an answer whose ring went unseen costs a slice, not the run.
        waitForMail(Math.min(left, MAIL_SLICE_MS));
      }
      return answer;
    };
    let outcome: KernelOutcome | undefined;
    try {
      outcome = runPreparedNow(supplied.sandbox, request, {
        now,
        timer: noTimer,
        hostCall: () => {
          giveUp('own');
          return never();
        },
        hostCallNow: (kind, name, args) => {
          if (givenUp || expired) return undefined;
          return kind === 'wasm' ? wasmNow(name, args) : capabilityNow(name, args);
        },
        checkpoint: () => {
          if (committed) return expired;
          if (++polls > NESTED_POLLS) giveUp('spun');
          else if (now() - start > NESTED_MS) giveUp('slow');
          return givenUp !== undefined;
        },
      });
    } catch {
      outcome = undefined;
    } finally {
      // A call given up on is still on its lane: the lane is stopped and replaced now.
      dispatcher?.close();
      refuseGrowth(supplied.memory, false);
    }
    // Outcomes that depend on where it ran are given back: this thread's stack (a stack overflow,
    // with the long run's frames below it), and, before it commits, a memory that could not grow.
    const overflowed =
      !outcome?.healthy || (!outcome.result.ok && (outcome.result.code === 'stack-overflow' || (!committed && outcome.result.code === 'memory-limit')));
    if (committed && outcome) {
      // Run here to its end, as it would have run alone (its limit reached while waiting is a timeout, as there).
      const result = expired ? { ...outcome.result, ok: false as const, code: 'timeout' as const, message: timeoutMessage(request.timeoutMs) } : outcome.result;
      this.#post({ type: 'done', runId, result, healthy: true });
    } else if (!outcome || givenUp || outcome.wouldWait || overflowed) {
      // Nested again elsewhere when no lane was free here, or only the wall clock ran out on a busy
      // machine; as its own run when it computes (or overflowed), or needs what only that gives.
      const again = !overflowed && outcome !== undefined && (givenUp === 'no-lane' || givenUp === 'slow');
      this.#post({
        type: 'requeue',
        runId,
        nestable: again,
        ...(again && givenUp === 'slow' ? { slow: true as const } : {}),
        ...(again && givenUp === 'no-lane' ? { noLane: true as const } : {}),
      });
    } else this.#post({ type: 'done', runId, result: outcome.result, healthy: true });
    supply.retire(supplied);
  }

  /** Runs one run on a supplied sandbox and posts its answer, then restores the sandbox. */
  async #runToAnswer(runId: number, request: KernelRunRequest, dispatcher: WasmDispatcher | undefined): Promise<void> {
    this.#current = runId;
    let supplied: SuppliedSandbox;
    try {
      supplied = await this.#sandboxes!.take(runNeedsWasm(request), request);
    } catch (error) {
      dispatcher?.close();
      const message = `The sandbox engine could not start: ${error instanceof Error ? error.message : String(error)}`;
      this.#current = undefined;
      // Unhealthy: the host replaces this worker, whose next engine may fail the same way.
      this.#post({ type: 'done', runId, result: { ok: false, code: 'sandbox-crashed', message, logs: [], receipt: emptyReceipt() }, healthy: false });
      return;
    }
    const outcome = await runPrepared(supplied.sandbox, request, {
      // A host that holds runs keeps held time, and nested runs' time, out of this clock, so
      // neither ever changes the run's result.
      ...this.#env.clock(),
      // Streamed as kept: if the host's watchdog must terminate this worker, the host has the logs so far.
      onLog: (entry) => this.#post({ type: 'log', runId, entry }),
      hostCall: (kind, name, args) => {
        if (kind === 'wasm' && dispatcher) return dispatcher.bridge(name, args[0], args[1]);
        return new Promise<HostCallResult>((resolve) => {
          const callId = this.#nextCallId++;
          this.#waiting.set(callId, { runId, resolve });
          this.#post({ type: 'host-call', runId, callId, kind, name, args: [...args] });
        });
      },
      block: this.#block,
    });
    // Calls still running on a lane are stopped (their lane is replaced) before the next run, and
    // this run's calls still unanswered are forgotten (their answers would find no run).
    dispatcher?.close();
    for (const [callId, call] of this.#waiting) if (call.runId === runId) this.#waiting.delete(callId);
    this.#current = undefined;
    // Once the answer is on its way, the sandbox goes back to its image from before any run, or,
    // if its run left it unfit (`outcome.healthy` false, a grown memory), is freed and replaced
    // (sandbox-supply.ts). The worker itself is sound either way, so it is not replaced for that.
    this.#post({ type: 'done', runId, result: outcome.result, healthy: true });
    this.#sandboxes!.retire(supplied);
    if (this.#grownFreed >= COLLECT_AFTER_GROWN_BYTES && this.#env.collect) {
      this.#grownFreed = 0;
      // From a task of its own: this frame still holds the run's sandbox, and its memory with it.
      setTimeout(this.#env.collect, 0);
    }
  }
}
