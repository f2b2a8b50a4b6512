// The web host as a user runs it: `sandbox-packs serve --root DIR` in a process of its own, and a
// typed client for its /api/rpc routes in this one, so what a bench measures over HTTP includes a
// real process boundary (the corpus bench installs and runs through it). Every answer is parsed
// with the contract's own response schema. `stop()` sends SIGINT (the server closes its
// connections and disposes its services) and SIGKILLs it only if it has not exited in time.

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { responseSchemaOf, type MethodName, type RequestOf, type ValueOf } from '../../shared/contract/methods.ts';
import type { Result } from '../../shared/protocol/result.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(REPO, 'scripts', 'sandbox-packs.mjs');

export interface ServeProcess {
  readonly origin: string;
  /** The bearer token the server printed (for clients of its own, e.g. keep-alive sockets). */
  readonly token: string;
  readonly pid: number;
  call<M extends MethodName>(method: M, request: RequestOf<M>): Promise<Result<ValueOf<M>>>;
  stop(): Promise<void>;
}

export class ServeProcessError extends Error {
  override readonly name = 'ServeProcessError';
}

export async function startServeProcess(root: string, startTimeoutMs = 120_000): Promise<ServeProcess> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--root', root, '--port', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const deadline = Date.now() + startTimeoutMs;
    let match: RegExpExecArray | null = null;
    while (!(match = /Open (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)/.exec(out))) {
      if (child.exitCode !== null) throw new ServeProcessError(`sandbox-packs serve exited (${child.exitCode}) before listening:\n${err}`);
      if (Date.now() > deadline) throw new ServeProcessError(`sandbox-packs serve did not print its address within ${startTimeoutMs} ms:\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [, origin, token] = match as unknown as [string, string, string];
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    return {
      origin,
      token,
      pid: child.pid ?? -1,
      async call(method, request) {
        let response: Response;
        try {
          response = await fetch(`${origin}/api/rpc/${method}`, { method: 'POST', headers, body: JSON.stringify(request) });
        } catch (error) {
          const state = child.exitCode !== null || child.signalCode !== null ? `it exited (${child.exitCode ?? child.signalCode})` : 'it is still running';
          throw new ServeProcessError(
            `${method} got no answer from sandbox-packs serve (${(error as Error).message}); ${state}; its stderr ends:\n${err.slice(-4000)}`,
            { cause: error },
          );
        }
        const parsed = responseSchemaOf(method).safeParse(await response.json());
        if (!parsed.success) throw new ServeProcessError(`${method} answered outside its contract (HTTP ${response.status}): ${parsed.error.message}`);
        return parsed.data;
      },
      stop: kill,
    };
  } catch (error) {
    await kill();
    throw error;
  }
}
