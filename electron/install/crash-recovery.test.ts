// Crash consistency, with the real CLI as a child process against a real Verdaccio: the CLI (and
// its npm) is SIGKILLed right after each stage event of install, update, trust, rebuild and
// uninstall, and at seeded pseudo-random points; then the same command is run again, as a user
// would. After the kill no half-installed pack may be active; the next command must say what it
// repaired (the lock it took over, the operation it rolled back or finished); afterwards the
// ledger, package.json, the lockfile, node_modules and the catalog agree, the operation reached
// its end, and a saved workflow and settings.json are byte for byte as before. A force-quit that
// leaves npm running is covered too: the lock is not taken over while that npm runs.
// Reproduce a random point with CRASH_SEED=<seed> (every failure message names the seed).

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Ledger } from '../../shared/protocol/ledger.ts';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';
import { createSettingsStore } from '../services/settings-store.ts';
import { createWorkflowStore } from '../services/workflow-store.ts';
import { runCli, startCli, type CliExit } from '../testing/cli-process.ts';
import { halfActivePacks, readLedgerFile, rootDisagreements } from '../testing/root-agreement.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createInstaller } from './installer.ts';
import { acquireRootLock, LOCK_DIR } from './root-lock.ts';

/** The install journal's file name (electron/install/journal.ts), spelled out so this check stands on its own. */
const JOURNAL_FILE = '.sandbox-packs-journal.json';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RANDOM_POINTS = 5;

// Each kill point is two or three CLI runs with real npm on a shared 2-core machine.
vi.setConfig({ testTimeout: 600_000 });

const EVOLVING = '@sp-fixture/evolving';
const WITH_DEP = '@sp-fixture/sandbox-with-dep';
const REGISTER = '@sp-fixture/register-pack';
const WORKFLOW = { nodes: [{ id: 'n1', type: 'code' as const, code: 'return 1;', packages: [{ specifier: EVOLVING }] }] };

let registry: TestRegistry;
let scratch: string;
const templates: Record<'base' | 'withDep' | 'withRegister' | 'trusted', string> = { base: '', withDep: '', withRegister: '', trusted: '' };

/** A tiny deterministic PRNG (mulberry32), so a seed reproduces the same kill points. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function makeTemplate(name: string, build: (root: string) => Promise<void>): Promise<string> {
  const root = path.join(scratch, `template-${name}`);
  cpSync(templates.base, root, { recursive: true });
  await build(root);
  return root;
}

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const dir of ['evolving-1.0.0', 'evolving-2.0.0', 'script-dep-1.0.0', 'sandbox-with-dep-1.0.0', 'register-pack-1.0.0']) {
    await registry.publish(path.join(FIXTURES, dir));
  }
  scratch = mkdtempSync(path.join(os.tmpdir(), 'sp-crash-'));
  // The base every scenario starts from: a pack installed, a saved workflow, settings.
  const base = path.join(scratch, 'template-base');
  const installed = await createInstaller({ root: base, registry: registry.url }).install(`${EVOLVING}@1.0.0`);
  if (!installed.ok) throw new Error(installed.message);
  const settings = await createSettingsStore(base).update({ registry: registry.url, sessionAllowlist: [EVOLVING] });
  if (!settings.ok) throw new Error(settings.message);
  const saved = await createWorkflowStore(base, WorkflowSchema).save('keep', WORKFLOW);
  if (!saved.ok) throw new Error(saved.message);
  templates.base = base;
  templates.withDep = await makeTemplate('with-dep', async (root) => {
    const r = await createInstaller({ root }).install(WITH_DEP);
    if (!r.ok) throw new Error(r.message);
  });
  templates.withRegister = await makeTemplate('with-register', async (root) => {
    const r = await createInstaller({ root }).install(REGISTER);
    if (!r.ok) throw new Error(r.message);
  });
  templates.trusted = path.join(scratch, 'template-trusted');
  cpSync(templates.withRegister, templates.trusted, { recursive: true });
  const trusted = await createInstaller({ root: templates.trusted }).trust(REGISTER);
  if (!trusted.ok) throw new Error(trusted.message);
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface Scenario {
  readonly name: string;
  readonly template: keyof typeof templates;
  /** Changes to the copied root before the run (e.g. a missing pack directory, so rebuild fetches it again). */
  readonly prepare?: (root: string) => void;
  readonly command: readonly string[];
  /** The stage events of a full run, in order; each is a kill point. */
  readonly stages: readonly string[];
  /** The pack the operation is about (named by the repair sentence). */
  readonly pack: string;
  /** The next command's answer is acceptable: done now, or done already before the kill. */
  readonly nextOk: (exit: CliExit) => boolean;
  /** The operation's end state, once the next command has run. */
  readonly end: (ledger: Ledger) => boolean;
}

const done = (exit: CliExit): boolean => exit.code === 0;

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'install',
    template: 'base',
    command: ['install', WITH_DEP],
    stages: ['resolving', 'fetching', 'classifying', 'compiling', 'done'],
    pack: WITH_DEP,
    nextOk: (exit) => done(exit) || (exit.code === 1 && exit.stderr.includes(`already-installed: ${WITH_DEP}@1.0.0 is already installed`)),
    end: (ledger) => ledger.packs[WITH_DEP]?.status === 'active' && ledger.packs[EVOLVING]?.version === '1.0.0',
  },
  {
    name: 'update',
    template: 'base',
    command: ['update', EVOLVING],
    stages: ['resolving', 'fetching', 'classifying', 'done'],
    pack: EVOLVING,
    nextOk: done,
    end: (ledger) => ledger.packs[EVOLVING]?.version === '2.0.0' && ledger.packs[EVOLVING]?.status === 'needs-trust',
  },
  {
    name: 'trust',
    template: 'withRegister',
    command: ['trust', REGISTER],
    stages: ['classifying', 'rebuilding', 'done'],
    pack: REGISTER,
    nextOk: done,
    end: (ledger) => ledger.packs[REGISTER]?.status === 'active' && ledger.packs[REGISTER]?.trust !== null,
  },
  {
    name: 'rebuild (the artifact fetched again first)',
    template: 'trusted',
    prepare: (root) => rmSync(path.join(root, 'node_modules', REGISTER), { recursive: true, force: true }),
    command: ['rebuild', REGISTER],
    stages: ['classifying', 'fetching', 'rebuilding', 'done'],
    pack: REGISTER,
    nextOk: done,
    end: (ledger) => ledger.packs[REGISTER]?.status === 'active',
  },
  {
    name: 'uninstall',
    template: 'withDep',
    command: ['uninstall', WITH_DEP],
    stages: ['removing', 'done'],
    pack: WITH_DEP,
    nextOk: (exit) => done(exit) || (exit.code === 1 && exit.stderr.includes(`No pack named ${WITH_DEP} is installed.`)),
    end: (ledger) => ledger.packs[WITH_DEP] === undefined && ledger.packs[EVOLVING] !== undefined,
  },
];

const KEPT_FILES = ['settings.json', 'workflows/keep.json'];

interface KillPoint {
  readonly stage: string;
  readonly delayMs: number;
}

/** The lines the next command printed about what it repaired. */
function repairLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /^\[(reconcile|repairing)\] /.test(line));
}

async function killAndRecover(scenario: Scenario, point: KillPoint, checkFaces: boolean): Promise<void> {
  const where = `${scenario.name}, killed ${point.delayMs} ms after "${point.stage}" (CRASH_SEED=${SEED})`;
  const root = mkdtempSync(path.join(scratch, 'root-'));
  cpSync(templates[scenario.template], root, { recursive: true });
  scenario.prepare?.(root);
  const kept = KEPT_FILES.map((file) => readFileSync(path.join(root, file), 'utf8'));
  try {
    const cli = startCli([...scenario.command, '--root', root]);
    const reached = await cli.stage(point.stage).then(
      () => true,
      () => false,
    );
    expect(reached, `${where}: the stage never came`).toBe(true);
    if (point.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, point.delayMs));
    cli.killGroup();
    const first = await cli.exit;
    const wasKilled = first.signal === 'SIGKILL';
    const journalLeft = existsSync(path.join(root, JOURNAL_FILE));
    const lockLeft = existsSync(path.join(root, LOCK_DIR));

    // Before anything repairs: the ledger is whole and no half-installed pack is active.
    expect.soft(await halfActivePacks(root, readLedgerFile(root)), where).toEqual([]);

    const next = await runCli([...scenario.command, '--root', root]);
    expect.soft(scenario.nextOk(next), `${where}: the next command answered ${String(next.code)}:\n${next.stderr}`).toBe(true);
    const repairs = repairLines(next.stderr);
    if (wasKilled && lockLeft)
      expect.soft(repairs.join('\n'), `${where}: nothing said about the lock left`).toMatch(/left the install root locked; the lock was taken over/);
    if (wasKilled && journalLeft) {
      expect
        .soft(repairs.join('\n'), `${where}: nothing said about the interrupted operation`)
        .toMatch(
          new RegExp(`(interrupted \\w+ of ${scenario.pack.replace('/', '\\/')})|(The \\w+ of ${scenario.pack.replace('/', '\\/')}(@[^ ]+)? was interrupted)`),
        );
    }

    expect.soft(await rootDisagreements(root), where).toEqual([]);
    expect.soft(scenario.end(readLedgerFile(root)), `${where}: the operation did not reach its end:\n${next.stderr}`).toBe(true);
    expect
      .soft(
        KEPT_FILES.map((file) => readFileSync(path.join(root, file), 'utf8')),
        `${where}: a saved workflow or settings.json changed`,
      )
      .toEqual(kept);
    if (checkFaces) {
      // What a user sees through the other commands agrees with the files.
      const listed = await runCli(['list', '--json', '--root', root]);
      const discovered = await runCli(['discover', '--json', '--root', root]);
      expect([listed.code, discovered.code], where).toEqual([0, 0]);
      const ledger = readLedgerFile(root);
      expect(
        (JSON.parse(listed.stdout) as { packs: { name: string }[] }).packs.map((p) => p.name),
        where,
      ).toEqual(Object.keys(ledger.packs).sort());
      expect((JSON.parse(discovered.stdout) as { packs: { name: string }[] }).packs.map((p) => p.name).sort(), where).toEqual(
        Object.values(ledger.packs)
          // discover lists sandbox packs: a register pack has no sandbox modules to list.
          .filter((p) => p.status === 'active' && p.installMode !== 'register')
          .map((p) => p.name)
          .sort(),
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('SIGKILL at every stage, then the next command', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: killed after each stage event`, async () => {
      for (const [i, stage] of scenario.stages.entries()) await killAndRecover(scenario, { stage, delayMs: 0 }, i === 0);
    });
  }

  it(`at ${RANDOM_POINTS} seeded pseudo-random points (CRASH_SEED=${SEED})`, async () => {
    const random = prng(SEED);
    for (let i = 0; i < RANDOM_POINTS; i++) {
      const scenario = SCENARIOS[Math.floor(random() * SCENARIOS.length)] as Scenario;
      const stage = scenario.stages[Math.floor(random() * (scenario.stages.length - 1))] as string;
      await killAndRecover(scenario, { stage, delayMs: Math.floor(random() * 1500) }, false);
    }
  });
});

describe('a force-quit that leaves npm running', () => {
  it('keeps the root locked while the orphaned npm runs, then the next command rolls the install back and completes it', async () => {
    const root = mkdtempSync(path.join(scratch, 'root-'));
    cpSync(templates.base, root, { recursive: true });
    const where = 'install, the CLI alone killed while npm runs';
    try {
      const cli = startCli(['install', WITH_DEP, '--root', root]);
      await cli.stage('fetching');
      // Wait until the lock records the npm child, then kill the CLI only: npm is orphaned.
      const ownerFile = path.join(root, LOCK_DIR, 'owner.json');
      let orphan: number | undefined;
      while (orphan === undefined && cli.child.exitCode === null) {
        const children = existsSync(ownerFile) ? ((JSON.parse(readFileSync(ownerFile, 'utf8')) as { children?: number[] }).children ?? []) : [];
        orphan = children[0];
        if (orphan === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (orphan === undefined) throw new Error(`${where}: the lock never recorded the npm the CLI started`);
      cli.killCliOnly();
      await cli.exit;
      const probe = await acquireRootLock(root, 'probe');
      if (probe.ok) {
        // Taken over: only allowed once the orphan had exited.
        expect(pidGone(orphan), `${where}: the lock was taken over while npm ${orphan} still ran`).toBe(true);
        await probe.value.release();
      } else {
        expect(probe.code, where).toBe('busy');
      }
      while (!pidGone(orphan)) await new Promise((resolve) => setTimeout(resolve, 20));
      const next = await runCli(['install', WITH_DEP, '--root', root]);
      expect(next.code === 0 || next.stderr.includes('is already installed'), `${where}:\n${next.stderr}`).toBe(true);
      expect(await rootDisagreements(root), where).toEqual([]);
      expect(readLedgerFile(root).packs[WITH_DEP]?.status, where).toBe('active');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}
