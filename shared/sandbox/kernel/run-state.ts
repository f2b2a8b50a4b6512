// What one kernel run accumulates while the guest runs — console entries, the receipt's calls,
// denials and modules, host calls in flight — and the one wait the job loop sleeps on. Kept apart
// from the engine so the bridge, the loader and the job loop share one record without passing a
// dozen closures between them.

import type { QuickJSDeferredPromise } from 'quickjs-emscripten-core';
import type { ErrorCode } from '../../protocol/codes.ts';
import { LIMITS } from '../../protocol/limits.ts';
import type { ReceiptCall, ReceiptDenial, RunLog, RunReceipt } from '../../protocol/run.ts';

/** A guest evaluation's ending before logs and receipt are attached. */
export type Outcome = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string };

export class RunState {
  readonly logs: RunLog[] = [];
  readonly calls: ReceiptCall[] = [];
  readonly denied: ReceiptDenial[] = [];
  /** Denials by their sentence: a guest error carrying one keeps its code (guest-errors.ts). */
  readonly denialsByReason = new Map<string, ReceiptDenial>();
  readonly modules = new Map<string, { moduleId: string; displayName: string; digest: string }>();
  readonly inflight = new Set<Promise<void>>();
  /** Host answers in hand for a run that never waits (KernelPowers.hostCallNow), handed to the guest at the job loop's next turn. */
  readonly answered: (() => void)[] = [];
  /** Host calls still unanswered when the run ends; the run's scope frees them with the context. */
  readonly deferreds = new Set<QuickJSDeferredPromise>();
  interrupted = false;
  closed = false;
  /** True while the guest's result is being serialized (a host stack overflow then is result-invalid). */
  serializingResult = false;
  /** The job loop's pending wait, if any: resolved with `true` by the deadline, `false` by a settled host call. */
  private waiter: ((expired: boolean) => void) | undefined;
  private expired = false;
  private logBytes = 0;
  private logTruncated = false;

  constructor(private readonly onLog: ((entry: RunLog) => void) | undefined) {}

  deny(denial: ReceiptDenial): void {
    this.denied.push(denial);
    this.denialsByReason.set(denial.reason, denial);
  }

  /** Sleep until a host call settles or the deadline passes; only the job loop waits. */
  wait(): Promise<boolean> {
    if (this.expired) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      this.waiter = resolve;
    });
  }

  /** The run's deadline timer fired: the current or next wait ends as a timeout. */
  expire(): void {
    this.expired = true;
    this.wake(true);
  }

  wake(expired: boolean): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(expired);
  }

  /** Console output, capped in bytes and in entries (an empty line costs no bytes, but an entry). */
  log(level: RunLog['level'], text: string): void {
    if (this.logTruncated) return;
    if (this.logs.length >= LIMITS.consoleEntries) {
      this.truncate(`[console output truncated at ${LIMITS.consoleEntries} entries]`);
      return;
    }
    const room = LIMITS.consoleBytes - this.logBytes;
    if (text.length > room) {
      this.keep({ level, text: text.slice(0, Math.max(0, room)) });
      this.truncate(`[console output truncated at ${LIMITS.consoleBytes} bytes]`);
      return;
    }
    this.logBytes += text.length;
    this.keep({ level, text });
  }

  private keep(entry: RunLog): void {
    this.logs.push(entry);
    this.onLog?.(entry);
  }

  private truncate(marker: string): void {
    this.keep({ level: 'warn', text: marker });
    this.logTruncated = true;
  }

  /** Modules imported isolated, by specifier: their display name and the node's calls of each export (isolation.ts). */
  readonly isolated = new Map<string, { readonly displayName: string; readonly calls: Map<string, number> }>();

  receipt(wallMs: number): RunReceipt {
    const receipt: RunReceipt = { wallMs, modules: [...this.modules.values()], calls: this.calls, denied: this.denied };
    if (this.isolated.size === 0) return receipt;
    const isolated = [...this.isolated].map(([specifier, { displayName, calls }]) => ({
      specifier,
      displayName,
      calls: [...calls].map(([name, count]) => ({ export: name, count })),
    }));
    return { ...receipt, isolated };
  }
}
