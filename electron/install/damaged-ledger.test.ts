// A truncated or corrupted install ledger at start, with the real CLI and a real registry: never a
// crash. With the backup durable writes keep (`sandbox-packs-ledger.json.bak`, the previous good
// generation) the ledger is restored from it; without one it is rebuilt from node_modules and the
// lockfile (consent is not recoverable, so packs with host code wait for trust again). Either way
// the damaged file is kept as a copy, the command says what it did and where the copy is, and the
// root agrees afterwards.

import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../testing/cli-process.ts';
import { readLedgerFile, rootDisagreements } from '../testing/root-agreement.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createInstaller } from './installer.ts';

vi.setConfig({ testTimeout: 300_000 });

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const EVOLVING = '@sp-fixture/evolving';
const REGISTER = '@sp-fixture/register-pack';
const MARKER = '@sp-fixture/sandbox-marker';
const LEDGER = 'sandbox-packs-ledger.json';

let registry: TestRegistry;
let scratch: string;
let base: string;

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  for (const dir of ['evolving-1.0.0', 'script-dep-1.0.0', 'register-pack-1.0.0', 'sandbox-marker-1.0.0']) await registry.publish(path.join(FIXTURES, dir));
  scratch = mkdtempSync(path.join(os.tmpdir(), 'sp-damaged-'));
  // A root with a sandbox-only pack and a trusted register pack: two ledger generations at least.
  base = path.join(scratch, 'base');
  const installer = createInstaller({ root: base, registry: registry.url });
  for (const step of [() => installer.install(`${EVOLVING}@1.0.0`), () => installer.install(REGISTER), () => installer.trust(REGISTER)]) {
    const done = await step();
    if (!done.ok) throw new Error(done.message);
  }
}, 180_000);

afterAll(async () => {
  await registry?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function freshRoot(): string {
  const root = mkdtempSync(path.join(scratch, 'root-'));
  cpSync(base, root, { recursive: true });
  return root;
}

const damagedCopies = (root: string): string[] => readdirSync(root).filter((entry) => entry.startsWith(`${LEDGER}.damaged-`));

describe('a damaged ledger at start', () => {
  it('cut short, with a backup: the next command restores the previous generation, keeps the damaged copy, says so, and completes', async () => {
    const root = freshRoot();
    try {
      const ledgerFile = path.join(root, LEDGER);
      const backup = readFileSync(`${ledgerFile}.bak`, 'utf8');
      const text = readFileSync(ledgerFile, 'utf8');
      writeFileSync(ledgerFile, text.slice(0, Math.floor(text.length / 2)));
      const next = await runCli(['install', MARKER, '--root', root]);
      expect(next.code, next.stderr).toBe(0);
      const copies = damagedCopies(root);
      expect(copies).toHaveLength(1);
      expect(readFileSync(path.join(root, copies[0] as string), 'utf8')).toBe(text.slice(0, Math.floor(text.length / 2)));
      expect(next.stderr).toMatch(
        new RegExp(
          `^\\[reconcile\\] The install ledger ${LEDGER.replace('.', '\\.')} was damaged \\(not valid JSON \\(cut short or overwritten\\)\\); it was restored from its backup of .+, and the damaged copy was kept as ${(copies[0] as string).replace(/[.]/g, '\\.')}\\.$`,
          'm',
        ),
      );
      // The backup is the generation before the trust: the pack is recorded, not yet trusted, and
      // nothing the tree holds is thrown away.
      const ledger = readLedgerFile(root);
      expect(JSON.parse(backup).packs[REGISTER].status).toBe('needs-rebuild');
      expect(ledger.packs[REGISTER]?.status).toBe('needs-rebuild');
      expect(Object.keys(ledger.packs).sort()).toEqual([EVOLVING, REGISTER, MARKER].sort());
      expect(await rootDisagreements(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('garbage, with no backup: `list` rebuilds it from node_modules and the lockfile, trust dropped, the damaged file kept', async () => {
    const root = freshRoot();
    try {
      const ledgerFile = path.join(root, LEDGER);
      const original = readLedgerFile(root);
      rmSync(`${ledgerFile}.bak`);
      writeFileSync(ledgerFile, '\u0000\u0000garbage{{');
      const listed = await runCli(['list', '--root', root]);
      expect(listed.code, listed.stderr).toBe(0);
      const copies = damagedCopies(root);
      expect(copies).toHaveLength(1);
      expect(listed.stderr).toContain(
        `[reconcile] The install ledger ${LEDGER} was damaged (not valid JSON (cut short or overwritten)) and had no usable backup; the damaged copy was kept as ${copies[0]}, and a new ledger was built from node_modules and the lockfile: ${EVOLVING}@1.0.0 (active); ${REGISTER}@1.0.0 (needs your trust again: consent is not recoverable).`,
      );
      expect(listed.stdout).toBe(
        `${EVOLVING}@1.0.0  sandbox-only  sandbox-only · active  not offered to agents  registry\n${REGISTER}@1.0.0  register  needs trust · inactive  no modules for agents  registry  scripts: 2\n`,
      );
      const rebuilt = readLedgerFile(root);
      expect(rebuilt.registry).toBe(registry.url);
      // The artifacts recorded are the ones on disk: same integrity and closure as the first install.
      for (const name of [EVOLVING, REGISTER]) {
        expect(rebuilt.packs[name]?.integrity).toBe(original.packs[name]?.integrity);
        expect(rebuilt.packs[name]?.closure.map((c) => c.path)).toEqual(original.packs[name]?.closure.map((c) => c.path));
        expect(rebuilt.packs[name]?.trust).toBeNull();
      }
      expect(await rootDisagreements(root)).toEqual([]);
      expect(existsSync(path.join(root, copies[0] as string))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('cut short right after an install, so the backup does not know the newest pack: it is recorded again from its files, not removed', async () => {
    const root = freshRoot();
    try {
      expect((await createInstaller({ root }).install(MARKER)).ok).toBe(true);
      const ledgerFile = path.join(root, LEDGER);
      expect(JSON.parse(readFileSync(`${ledgerFile}.bak`, 'utf8')).packs).not.toHaveProperty([MARKER]);
      writeFileSync(ledgerFile, '');
      const listed = await runCli(['list', '--root', root]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stderr).toMatch(
        /^\[reconcile\] The install ledger sandbox-packs-ledger\.json was damaged \(the file is empty\); it was restored from its backup of .+\.$/m,
      );
      expect(listed.stderr).toContain(
        `[reconcile] ${MARKER}@1.0.0 is in the install root but not in the ledger's backup; it was recorded again from its files (active).`,
      );
      expect(readLedgerFile(root).packs[MARKER]).toMatchObject({ status: 'active', trust: null });
      expect(await rootDisagreements(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
