// What an adapter gives the kernel host core (kernel-host-core.ts) and gets from it: how a worker
// is posted to, ended and optionally held, the hooks its events go to, the wording of runs ended
// on the host's side, and the core's options. Kept apart from the core's rules so an adapter (the
// Node pool, the browser runner, the core's tests) reads its whole contract in one place.

import type { ErrorCode } from '../../protocol/codes.ts';
import type { HostCallResult, KernelRunRequest } from '../../protocol/run.ts';
import type { Scheduler } from './scheduler.ts';
import type { RunSources } from '../supply/source-cache.ts';

/** The part of a worker the core uses; the adapter wires the worker's events to `KernelWorkerHooks`. */
export interface KernelWorker {
  /** Throws when the message cannot be cloned. */
  postMessage(message: unknown): void;
  /** May return a promise that settles once the worker has exited; `close()` waits for it. */
  terminate(): unknown;
  /** Present when the worker can hold its current run back and take nested runs (fair-scheduler.ts). */
  readonly hold?: RunHoldSwitch;
}

/**
 * The host's side of holding a worker's run. The worker holds its run while the switch is on, at
 * most `HOLD_BUDGET_MS` in all, and reports how long it has held it so far.
 */
export interface RunHoldSwitch {
  set(held: boolean): void;
  /** Milliseconds the current run has been held so far. */
  heldMs(): number;
  /** Interrupt polls the current run has made: it runs guest code (one waiting, or inside one native call, makes none, and holding it would not stop it). */
  polls(): number;
  /** Off, nothing held and no polls yet: called as a run is dispatched. */
  reset(): void;
  /** Milliseconds since the current run last polled (large when it has not). */
  sincePollMs(): number;
  /** Wakes the worker's current run at its next poll to take what was posted to it (a nested run). */
  ring(): void;
}

/** What the adapter calls when its worker speaks or dies; calls after retirement are ignored. */
export interface KernelWorkerHooks {
  /** A message from the worker, unparsed. */
  message(raw: unknown): void;
  /** The worker failed, exited or sent what could not be read; `why` is a clause ("the sandbox worker failed: …") the wording turns into the run's message. */
  crashed(why: string, code?: Extract<ErrorCode, 'sandbox-crashed' | 'memory-limit'>): void;
}

/** A host call from the guest, as the worker forwarded it. */
export interface KernelHostCall {
  readonly kind: 'capability' | 'wasm';
  readonly name: string;
  readonly args: unknown[];
}

/** The sentences a host's users read when a run ends on this side (a page and the app word them apart). */
export interface KernelHostWording {
  /** A run whose worker died, from a reason such as "the sandbox worker failed: …". */
  readonly crashed: (why: string) => string;
  /** Every run's answer once workers keep failing to start. */
  readonly cannotStart: (why: string) => string;
  readonly closedQueued: string;
  readonly closedRunning: string;
  /** Who answers host calls, in messages: "host" or "page". */
  readonly side: string;
}

export interface KernelHostCoreOptions<P> {
  /** Workers kept, and started at once. */
  readonly size: number;
  /** Who runs where: `fifoScheduler` (scheduler.ts), or `fairScheduler` (fair-scheduler.ts) with its settings. */
  readonly scheduler: Scheduler;
  /** Extra time past a run's deadline before its worker is terminated. */
  readonly graceMs: number;
  readonly startWorker: (hooks: KernelWorkerHooks) => KernelWorker;
  /**
   * The message that sends a run to a worker busy with a long run, to run nested at that run's
   * polls, when the scheduler nests it (fair-scheduler.ts). Only for workers that can (a Node
   * sandbox worker, whose `hold` rings it); without it, runs wait for a free worker. `ports` are
   * the run's (a run with WASM carries its plan, when `nestsWasm`).
   */
  readonly nestedRunMessage?: (runId: number, request: KernelRunRequest, sources: RunSources | undefined, ports: P) => unknown;
  /** Runs with WASM may be sent nested too: the worker answers their calls at once, on a futex (kernel-worker-loop.ts). */
  readonly nestsWasm?: boolean;
  /**
   * Told when short work starts or stops being under way or waiting (the same test that decides
   * whether held runs may go on): a host whose workers can read it lets a run that polls a lot
   * hold itself at once (run-hold.ts), without waiting for the core to say so.
   */
  readonly pressure?: (on: boolean) => void;
  /** The message that starts a run on a worker (a host may add what its worker needs, e.g. a WASM plan). */
  /** `sources`: which module sources the worker keeps or fills in (source-cache.ts); the message carries them as `sources`. */
  readonly runMessage: (runId: number, request: KernelRunRequest, ports: P, sources: RunSources | undefined) => unknown;
  /**
   * Answer one host call through the run's ports; may reject (the core answers `internal`).
   * `signal()` is the run's abort signal, made on first use and fired when the run ends.
   */
  readonly answer: (ports: P, call: KernelHostCall, signal: () => AbortSignal) => Promise<HostCallResult>;
  readonly wording: KernelHostWording;
}
