// The word a sandbox worker restores after (answered-word.ts): the wait ends when the host
// signals, whether it did before the wait or during it, and at the timeout when it never does;
// through the real pool, a worker that would wait ten minutes for it still answers runs back to back
// and after idle, each in an untouched sandbox — so the pool signals after every answer and on
// every post. Outcomes and completion are asserted, never times.
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { answeredCount, awaitAnswered, createAnsweredWord, signalAnswered } from './answered-word.ts';
import { SandboxPool } from './sandbox-pool.ts';

describe('the answered word', () => {
  it('ends the wait at once when the host signalled after the count was read', () => {
    const word = createAnsweredWord();
    const before = answeredCount(word);
    signalAnswered(word);
    expect(awaitAnswered(word, before, 60_000)).toBe('not-equal');
  });

  it('ends the wait at its timeout when the host never signals', () => {
    const word = createAnsweredWord();
    expect(awaitAnswered(word, answeredCount(word), 1)).toBe('timed-out');
  });

  it('wakes a worker thread waiting on it when the host signals', async () => {
    const word = createAnsweredWord();
    // The same wait as awaitAnswered, in a thread of its own; it says "waiting" just before it waits.
    const waiter = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const before = Atomics.load(workerData, 0);
       parentPort.postMessage('waiting');
       parentPort.postMessage(Atomics.wait(workerData, 0, before, 600000));`,
      { eval: true, workerData: word },
    );
    try {
      const outcomes: string[] = [];
      const ended = new Promise<void>((resolve) =>
        waiter.on('message', (message: string) => {
          if (message === 'waiting') signalAnswered(word);
          else {
            outcomes.push(message);
            resolve();
          }
        }),
      );
      await ended;
      // 'ok' if it was asleep when the host signalled, 'not-equal' if the signal came first; never the timeout.
      expect(outcomes).toHaveLength(1);
      expect(['ok', 'not-equal']).toContain(outcomes[0]);
    } finally {
      await waiter.terminate();
    }
  });
});

describe('the pool and its workers’ answered words', () => {
  // A worker waits up to ten minutes for the word after each answer: every run below completes only
  // because the pool signals it (after handling each answer, and when it posts the next run).
  const pool = new SandboxPool({ size: 1, answerWaitMs: 600_000 });
  afterAll(() => pool.close());
  const run = (code: string): KernelRunRequest => ({ code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 30_000 });

  it('answers runs back to back, at once after each other and after idle, each in a sandbox no run touched', async () => {
    const seen: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const result = await pool.run(run(`const was = globalThis.left; globalThis.left = ${i}; return was ?? 'untouched';`));
      seen.push(result.ok ? result.value : result.code);
      if (i % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Several at once: the next is posted the moment the one before answers.
    const burst = await Promise.all([0, 1, 2, 3].map((i) => pool.run(run(`const was = globalThis.left; globalThis.left = ${i}; return was ?? 'untouched';`))));
    seen.push(...burst.map((result) => (result.ok ? result.value : result.code)));
    expect(seen).toEqual(Array(10).fill('untouched'));
    expect(pool.started).toBe(1);
  }, 60_000);
});
