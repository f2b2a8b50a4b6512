// The `sandbox-packs` CLI as a child process, the way a user (or a second face) starts it, for
// the fault tests: its stage lines (`[stage] message` on stderr, one per install-progress event)
// are watched as they arrive, so a test can act at a stage — SIGKILL the CLI with its npm
// (its process group, as a power cut would), or the CLI alone (as a force-quit would, leaving
// npm running) — and otherwise wait for it to finish.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_SCRIPT = fileURLToPath(new URL('../../scripts/sandbox-packs.mjs', import.meta.url));

export interface CliExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Stages in the order their lines arrived. */
  readonly stages: readonly string[];
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves when a line for `stage` has arrived (its nth occurrence, default the first); rejects if the CLI ends first. */
  stage(stage: string, occurrence?: number): Promise<void>;
  /** Resolves when stderr holds a line matching `pattern`. */
  line(pattern: RegExp): Promise<string>;
  readonly exit: Promise<CliExit>;
  /** SIGKILL the CLI and every process of its group (npm included). */
  killGroup(): void;
  /** SIGKILL the CLI alone: its npm child, if any, runs on as an orphan. */
  killCliOnly(): void;
  /** SIGSTOP / SIGCONT the CLI's whole group: a process that is alive and holds what it holds, but makes no progress. */
  pause(): void;
  resume(): void;
}

const STAGE_LINE = /^\[([a-z-]+)\] /;

export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): CliProcess {
  // detached: its own process group, so killGroup reaches npm too and nothing reaches the test runner.
  const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the CLI did not start');
  let stdout = '';
  let stderr = '';
  let pending = '';
  const stages: string[] = [];
  const waiters: { test: () => boolean; resolve: () => void; reject: (error: Error) => void }[] = [];
  const check = (): void => {
    for (const waiter of [...waiters]) {
      if (waiter.test()) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const stage = STAGE_LINE.exec(line)?.[1];
      if (stage) stages.push(stage);
    }
    check();
  });
  const exit = new Promise<CliExit>((resolve) => {
    child.once('close', (code, signal) => {
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the CLI ended (code ${String(code)}, ${String(signal)}) first; stderr:\n${stderr}`));
      resolve({ code, signal, stdout, stderr, stages: [...stages] });
    });
  });
  const wait = (test: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      if (test()) return resolve();
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`the CLI had ended; stderr:\n${stderr}`));
      waiters.push({ test, resolve, reject });
    });
  const kill = (target: number, signal: NodeJS.Signals = 'SIGKILL'): void => {
    try {
      process.kill(target, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  return {
    child,
    pid,
    stage: (stage, occurrence = 1) => wait(() => stages.filter((s) => s === stage).length >= occurrence),
    async line(pattern) {
      await wait(() => stderr.split('\n').some((l) => pattern.test(l)));
      return stderr.split('\n').find((l) => pattern.test(l)) as string;
    },
    exit,
    killGroup: () => kill(-pid),
    killCliOnly: () => kill(pid),
    pause: () => kill(-pid, 'SIGSTOP'),
    resume: () => kill(-pid, 'SIGCONT'),
  };
}

/** Run the CLI to its end. */
export function runCli(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CliExit> {
  return startCli(args, env).exit;
}
