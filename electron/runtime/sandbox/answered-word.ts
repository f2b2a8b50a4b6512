// One shared word per sandbox worker through which the pool says "the answer you posted has been
// handled", so the worker restores its sandbox after the host's thread has sent the answer on,
// not while it does. Restoring writes megabytes (sandbox-supply.ts); on a busy 2-core machine the
// worker and the host's thread often share a core, and a worker that restores at once keeps the
// host from reading the answer until it is done (figures: docs/performance.md). The worker waits
// on the word at most `ANSWER_WAIT_MS`, so a host that never says so only delays the restore.

/** The longest a worker waits for the host before it restores anyway. */
export const ANSWER_WAIT_MS = 1;

export function createAnsweredWord(): Int32Array<SharedArrayBuffer> {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

export function isAnsweredWord(view: Int32Array): boolean {
  return view.buffer instanceof SharedArrayBuffer && view.length === 1;
}

/** Host side: the worker's answer has been handled, or something new was posted to it: it restores now. */
export function signalAnswered(word: Int32Array): void {
  Atomics.add(word, 0, 1);
  Atomics.notify(word, 0);
}

/** Worker side: the word's value before posting an answer, then `awaitAnswered` with it after posting. */
export function answeredCount(word: Int32Array): number {
  return Atomics.load(word, 0);
}

/**
 * Sleeps (a futex wait, no CPU) until the host has signalled since `before` was read, or for
 * `timeoutMs`; 'not-equal' when it had already signalled.
 */
export function awaitAnswered(word: Int32Array, before: number, timeoutMs = ANSWER_WAIT_MS): 'ok' | 'not-equal' | 'timed-out' {
  return Atomics.wait(word, 0, before, timeoutMs);
}
