// Two real processes on one data directory: the CLI installing while the web host (`serve`,
// standing in for the app) installs, and two CLIs at once. The second waits on the root lock and
// says so (a `waiting` stage: a `[waiting]` line from the CLI, an install-progress event from the
// host), then does its work; with a bound it cannot meet it refuses with a sentence. Neither ever
// corrupts the root: afterwards the ledger, the npm files, node_modules and the catalog agree.

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_SCRIPT, runCli, startCli, type CliProcess } from '../testing/cli-process.ts';
import { readLedgerFile, rootDisagreements } from '../testing/root-agreement.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createInstaller } from './installer.ts';

vi.setConfig({ testTimeout: 300_000 });

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const EVOLVING = '@sp-fixture/evolving';
const WITH_DEP = '@sp-fixture/sandbox-with-dep';
const MARKER = '@sp-fixture/sandbox-marker';

let registry: TestRegistry;
let scratch: string;
let base: string;

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const dir of ['evolving-1.0.0', 'script-dep-1.0.0', 'sandbox-with-dep-1.0.0', 'sandbox-marker-1.0.0']) await registry.publish(path.join(FIXTURES, dir));
  scratch = mkdtempSync(path.join(os.tmpdir(), 'sp-two-'));
  base = path.join(scratch, 'base');
  const installed = await createInstaller({ root: base, registry: registry.url }).install(`${EVOLVING}@1.0.0`);
  if (!installed.ok) throw new Error(installed.message);
}, 180_000);

afterAll(async () => {
  await registry?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A CLI a failed test left paused or running does not outlive it. */
function stopped(cli: CliProcess | undefined): void {
  if (!cli || cli.child.exitCode !== null || cli.child.signalCode !== null) return;
  cli.resume();
  cli.killGroup();
}

function freshRoot(): string {
  const root = mkdtempSync(path.join(scratch, 'root-'));
  cpSync(base, root, { recursive: true });
  return root;
}

/** `sandbox-packs serve` on the root: its origin and token, read from the address it prints. */
async function serve(root: string): Promise<{ child: ChildProcess; origin: string; token: string }> {
  const child = spawn(process.execPath, [CLI_SCRIPT, 'serve', '--root', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  for (;;) {
    const match = /Open (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)/.exec(out);
    if (match) return { child, origin: match[1] as string, token: match[2] as string };
    if (child.exitCode !== null) throw new Error(`serve ended: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every install-progress event the host pushes, as it arrives. */
async function watchEvents(origin: string, token: string): Promise<{ events: { stage: string; message: string }[]; stop: () => Promise<void> }> {
  const controller = new AbortController();
  const response = await fetch(`${origin}/api/events`, { headers: { Authorization: `Bearer ${token}` }, signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const events: { stage: string; message: string }[] = [];
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) return;
      buffer += new TextDecoder().decode(chunk.value);
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop() ?? '';
      for (const block of blocks) {
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!data) continue;
        const event = JSON.parse(data) as { type: string; stage?: string; message?: string };
        if (event.type === 'install-progress') events.push({ stage: event.stage ?? '', message: event.message ?? '' });
      }
    }
  })();
  return {
    events,
    async stop() {
      controller.abort();
      await reading;
    },
  };
}

describe('two processes on one root', () => {
  it('the CLI installs while the web host installs: the host waits on the lock and says so, both finish, the root agrees', async () => {
    const root = freshRoot();
    const host = await serve(root);
    let cli: CliProcess | undefined;
    try {
      const watch = await watchEvents(host.origin, host.token);
      cli = startCli(['install', WITH_DEP, '--root', root]);
      await cli.stage('fetching'); // the CLI holds the root lock from here until it is done
      // Held still (alive, holding the lock) until the host has said it waits: no race with a fast install.
      cli.pause();
      const fromHost = fetch(`${host.origin}/api/rpc/packs.install`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ spec: MARKER, operationId: 'host-1' }),
      }).then((res) => res.json() as Promise<{ ok: boolean; value?: { name: string; status: string } }>);
      let answered = false;
      void fromHost.finally(() => (answered = true));
      while (!answered && !watch.events.some((e) => e.stage === 'waiting')) await new Promise((resolve) => setTimeout(resolve, 20));
      cli.resume();
      const [cliExit, hostAnswer] = await Promise.all([cli.exit, fromHost]);
      await watch.stop();
      expect(cliExit.code, cliExit.stderr).toBe(0);
      expect(hostAnswer).toMatchObject({ ok: true, value: { name: MARKER, status: 'active' } });
      const waiting = watch.events.filter((e) => e.stage === 'waiting');
      expect(waiting).toHaveLength(1);
      expect(waiting[0]?.message).toMatch(
        /^Another operation \(install, process \d+, since .+\) is running on this install root; waiting up to 60 s for it to finish\.$/,
      );
      // The host's stages: it waited, then did the whole install after the CLI was done.
      // On failure the events' messages say what else happened (a 'repairing' stage once, under CI load: its line names the fix).
      expect(
        watch.events.map((e) => e.stage),
        JSON.stringify(watch.events),
      ).toEqual(['waiting', 'resolving', 'fetching', 'classifying', 'compiling', 'done']);
      expect(Object.keys(readLedgerFile(root).packs).sort()).toEqual([EVOLVING, MARKER, WITH_DEP]);
      expect(await rootDisagreements(root)).toEqual([]);
    } finally {
      stopped(cli);
      host.child.kill('SIGINT');
      await once(host.child, 'exit');
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('two CLIs install at once: the second prints that it waits, then installs; the root agrees', async () => {
    const root = freshRoot();
    let first: CliProcess | undefined;
    try {
      first = startCli(['install', WITH_DEP, '--root', root]);
      await first.stage('fetching');
      first.pause(); // alive and holding the lock until the second says it waits
      const second = startCli(['install', MARKER, '--root', root, '--wait', '120']);
      await second.stage('waiting');
      first.resume();
      const [a, b] = await Promise.all([first.exit, second.exit]);
      expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
      expect(b.stderr).toMatch(
        new RegExp(
          `^\\[waiting\\] Another operation \\(install, process ${first.pid}, since .+\\) is running on this install root; waiting up to 120 s for it to finish\\.$`,
          'm',
        ),
      );
      expect(b.stages).toEqual(['waiting', 'resolving', 'fetching', 'classifying', 'compiling', 'done']);
      expect(Object.keys(readLedgerFile(root).packs).sort()).toEqual([EVOLVING, MARKER, WITH_DEP]);
      expect(await rootDisagreements(root)).toEqual([]);
    } finally {
      stopped(first);
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a bounded wait that runs out refuses with a sentence and changes nothing; once the holder is done the same install works', async () => {
    const root = freshRoot();
    // Another process holding the root: a node process that takes the lock and keeps it until told.
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { acquireRootLock } = await import(${JSON.stringify(new URL('./root-lock.ts', import.meta.url).href)});
         const lock = await acquireRootLock(${JSON.stringify(root)}, 'first-run');
         if (!lock.ok) process.exit(3);
         process.stdout.write('held\\n');
         process.stdin.on('end', async () => { await lock.value.release(); process.exit(0); });
         process.stdin.resume();`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
        holder.once('exit', (code) => reject(new Error(`the holder ended with ${String(code)}`)));
      });
      const before = readLedgerFile(root);
      const refused = await runCli(['install', MARKER, '--root', root, '--wait', '1']);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^\\[waiting\\] Another operation \\(first-run, process ${holder.pid}, since .+\\) is running on this install root; waiting up to 1 s for it to finish\\.$`,
          'm',
        ),
      );
      expect(refused.stderr).toMatch(
        new RegExp(
          `^busy: Another operation \\(first-run, process ${holder.pid}, since .+\\) is still running on the install root ${root.replace(/[/.]/g, '\\$&')} after waiting 1 s; try again when it has finished\\.$`,
          'm',
        ),
      );
      expect(readLedgerFile(root)).toEqual(before);

      holder.stdin?.end();
      await once(holder, 'exit');
      const installed = await runCli(['install', MARKER, '--root', root, '--wait', '0']);
      expect(installed.code, installed.stderr).toBe(0);
      expect(await rootDisagreements(root)).toEqual([]);
    } finally {
      if (holder.exitCode === null) holder.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  });
});
