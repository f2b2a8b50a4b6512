// What "the root is consistent" means for the fault tests, checked from the files themselves:
// the ledger parses; the root's package.json lists exactly the recorded packs; the lockfile pins
// each at its recorded version and integrity; node_modules holds each at that version and holds
// nothing the lockfile does not account for; the packs discovery may list (activePackNames) are
// exactly the recorded active ones, each with every file of its closure as recorded (no half
// pack is active); the catalog discovers exactly those that have sandbox modules (not register
// packs); and no journal, lock or temp file is left. Answers every disagreement as a sentence, so a test asserts `[]` and shows what broke.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LedgerSchema, type Ledger } from '../../shared/protocol/ledger.ts';
import { activePackNames } from '../install/active-packs.ts';
import { treeDigest } from '../install/inspect.ts';
import { LEDGER_FILE } from '../install/ledger-store.ts';
import { LOCK_DIR } from '../install/root-lock.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';

/** The install journal's file name (electron/install/journal.ts), spelled out so this check stands on its own. */
const JOURNAL_FILE = '.sandbox-packs-journal.json';

interface LockJson {
  packages: Record<string, { version?: string; integrity?: string; link?: boolean }>;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function topLevel(root: string): string[] {
  const base = path.join(root, 'node_modules');
  if (!existsSync(base)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.name.startsWith('@')) for (const inner of readdirSync(path.join(base, entry.name))) found.push(`node_modules/${entry.name}/${inner}`);
    else found.push(`node_modules/${entry.name}`);
  }
  return found.sort();
}

/** Every active pack has each closure package on disk with the digest recorded at install (or after its trusted scripts). */
export async function halfActivePacks(root: string, ledger: Ledger): Promise<string[]> {
  const problems: string[] = [];
  for (const name of (await activePackNames(root)) ?? []) {
    const record = ledger.packs[name];
    if (!record) {
      problems.push(`${name} is active but not recorded`);
      continue;
    }
    for (const entry of record.closure) {
      const dir = path.join(root, entry.path);
      const digest = existsSync(dir) ? await treeDigest(dir) : 'missing';
      if (digest !== entry.treeDigest && digest !== entry.builtDigest)
        problems.push(`${name} is active but ${entry.path} is ${digest === 'missing' ? 'missing' : 'not as recorded'}`);
    }
  }
  return problems;
}

export function readLedgerFile(root: string): Ledger {
  return LedgerSchema.parse(readJson(path.join(root, LEDGER_FILE)));
}

export async function rootDisagreements(root: string, options: { readonly catalog?: boolean } = {}): Promise<string[]> {
  const problems: string[] = [];
  let ledger: Ledger;
  try {
    ledger = readLedgerFile(root);
  } catch (error) {
    return [`the ledger does not parse: ${(error as Error).message}`];
  }
  let deps: Record<string, string>;
  let lock: LockJson;
  try {
    deps = (readJson(path.join(root, 'package.json')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    lock = readJson(path.join(root, 'package-lock.json')) as LockJson;
  } catch (error) {
    return [`package.json or package-lock.json does not parse: ${(error as Error).message}`];
  }
  const recorded = Object.keys(ledger.packs).sort();
  if (JSON.stringify(Object.keys(deps).sort()) !== JSON.stringify(recorded))
    problems.push(`package.json lists ${Object.keys(deps).sort().join(', ') || 'nothing'} but the ledger records ${recorded.join(', ') || 'nothing'}`);
  for (const record of Object.values(ledger.packs)) {
    const at = `${record.name}@${record.version}`;
    if (record.source === 'registry' && deps[record.name] !== record.version)
      problems.push(`package.json pins ${record.name} at ${deps[record.name]}, the ledger ${at}`);
    const pinned = lock.packages[`node_modules/${record.name}`];
    if (pinned?.version !== record.version || pinned.integrity !== record.integrity)
      problems.push(`the lockfile does not pin ${at} with its recorded integrity`);
    const installed = path.join(root, 'node_modules', record.name, 'package.json');
    const version = existsSync(installed) ? (readJson(installed) as { version?: string }).version : undefined;
    if (version !== record.version) problems.push(`node_modules holds ${record.name} at ${version ?? 'nothing'}, the ledger ${at}`);
  }
  const lockTop = Object.keys(lock.packages)
    .filter((key) => /^node_modules\/(@[^/]+\/)?[^/@][^/]*$/.test(key) && !lock.packages[key]?.link)
    .sort();
  const onDisk = topLevel(root);
  for (const rel of onDisk) if (!lockTop.includes(rel)) problems.push(`${rel} is in node_modules but not in the lockfile`);
  for (const rel of lockTop) if (!onDisk.includes(rel)) problems.push(`${rel} is in the lockfile but not in node_modules`);

  const active = [...((await activePackNames(root)) ?? [])].sort();
  const recordedActive = Object.values(ledger.packs)
    .filter((r) => r.status === 'active')
    .map((r) => r.name)
    .sort();
  if (JSON.stringify(active) !== JSON.stringify(recordedActive))
    problems.push(`active packs are ${active.join(', ') || 'none'} but the ledger marks ${recordedActive.join(', ') || 'none'} active`);
  problems.push(...(await halfActivePacks(root, ledger)));
  if (options.catalog !== false) {
    const catalog = await openRootCatalog(root);
    if (!catalog.ok) problems.push(`the catalog does not open: ${catalog.message}`);
    else {
      const discovered = catalog.value
        .diagnostics()
        .map((row) => row.name)
        .sort();
      // A register pack has host code and no sandbox modules: nothing for the catalog to list.
      const withModules = active.filter((name) => ledger.packs[name]?.installMode !== 'register');
      if (JSON.stringify(discovered) !== JSON.stringify(withModules))
        problems.push(`the catalog lists ${discovered.join(', ') || 'nothing'}, the active sandbox packs are ${withModules.join(', ') || 'none'}`);
    }
  }
  for (const leftover of [JOURNAL_FILE, LOCK_DIR]) if (existsSync(path.join(root, leftover))) problems.push(`${leftover} is left behind`);
  for (const entry of readdirSync(root)) if (entry.endsWith('.tmp')) problems.push(`${entry} is left behind`);
  return problems;
}
