// Tiny benchmark harness: time a function repeatedly, report min/median/p95, and print ratios
// of our path against its anchor measured in the same run (machines here are noisy, so only
// same-run ratios mean anything).

export interface Stats {
  readonly label: string;
  readonly runs: number;
  readonly minMs: number;
  readonly medianMs: number;
  readonly p95Ms: number;
}

export async function measure(label: string, runs: number, fn: () => unknown | Promise<unknown>, warmup = 1): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { label, runs, minMs: samples[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}

/** Stats of samples already taken (milliseconds). */
export function statsOf(label: string, samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { label, runs: sorted.length, minMs: sorted[0] ?? Number.NaN, medianMs: at(0.5), p95Ms: at(0.95) };
}

/**
 * Like `measure`, but each sample waits `idleMs` untimed first: time for what a worker does
 * while idle (it restores its sandbox then), as a user's runs arrive.
 */
export async function measureAfterIdle(label: string, runs: number, idleMs: number, fn: () => unknown | Promise<unknown>, warmup = 5): Promise<Stats> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const start = performance.now();
    await fn();
    if (i >= warmup) samples.push(performance.now() - start);
  }
  return statsOf(label, samples);
}

export interface Case {
  readonly label: string;
  readonly fn: () => unknown | Promise<unknown>;
}

/**
 * Several cases measured in the same stretch of the process's life: blocks of `block` samples of
 * each case in turn, until each has `runs`, after `warmup` untimed calls of each (in blocks too).
 * Rows that are compared with each other (one subtracted from another) are measured this way: a
 * Node process keeps getting faster over its first few thousand requests (the bare loopback alone
 * goes from ~740 to ~370 µs over 3,000 fetches as V8 optimizes node:http and undici), so rows
 * timed one after the other compare different moments of that warm-up, not different paths.
 * Within a block samples run back to back (or after `idleMs` untimed, when given).
 */
export async function measureInterleaved(cases: readonly Case[], options: { runs: number; warmup: number; block?: number; idleMs?: number }): Promise<Stats[]> {
  const block = options.block ?? 20;
  const idle = options.idleMs;
  const samples = cases.map(() => [] as number[]);
  const pause = () => (idle === undefined ? undefined : new Promise((resolve) => setTimeout(resolve, idle)));
  for (let done = 0; done < options.warmup; done += block) {
    for (const c of cases) for (let i = 0; i < Math.min(block, options.warmup - done); i++) await c.fn();
  }
  for (let done = 0; done < options.runs; done += block) {
    for (const [index, c] of cases.entries()) {
      for (let i = 0; i < Math.min(block, options.runs - done); i++) {
        await pause();
        const start = performance.now();
        await c.fn();
        samples[index]!.push(performance.now() - start);
      }
    }
  }
  return cases.map((c, index) => statsOf(c.label, samples[index]!));
}

export function fmtMs(ms: number): string {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  return `${ms.toFixed(2)} ms`;
}

export function printTable(title: string, rows: readonly Stats[]): void {
  console.log(`\n## ${title}`);
  const width = Math.max(...rows.map((r) => r.label.length), 10);
  console.log(`${'case'.padEnd(width)}  ${'runs'.padStart(5)}  ${'min'.padStart(10)}  ${'median'.padStart(10)}  ${'p95'.padStart(10)}`);
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(width)}  ${String(r.runs).padStart(5)}  ${fmtMs(r.minMs).padStart(10)}  ${fmtMs(r.medianMs).padStart(10)}  ${fmtMs(r.p95Ms).padStart(10)}`,
    );
  }
}

export function printRatio(label: string, ours: Stats, anchor: Stats, goal?: string): void {
  const ratio = ours.medianMs / anchor.medianMs;
  console.log(`ratio ${label}: ${ratio.toFixed(2)}× (${fmtMs(ours.medianMs)} / ${fmtMs(anchor.medianMs)})${goal ? `  goal: ${goal}` : ''}`);
}

export interface BenchSection {
  readonly name: string;
  /** Runs only when named (`npm run bench -- NAME`): it needs what a default run must not (the public registry). */
  readonly optIn?: boolean;
  run(): Promise<void>;
}
