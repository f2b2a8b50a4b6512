// Reading and writing the ledger file. Writes are durable (temp file, flushed, renamed over the
// ledger: a crash or a power cut leaves either the old or the new ledger, never half of one) and
// keep the previous good generation as `sandbox-packs-ledger.json.bak`. Reads parse from
// `unknown`: a damaged ledger is reported, never trusted. Repairing one (restoring the backup, or
// rebuilding from the tree when there is none) changes the root, so it happens under the root
// lock (`repairLedger`, called by the installer); a plain read only says what is wrong.

import { LedgerSchema, LEDGER_FORMAT, type Ledger } from '../../shared/protocol/ledger.ts';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { keepDamagedCopy, writeFileDurably } from '../platform/durable-file.ts';
import { parseJsonText, readRecovering, type TextParse } from '../platform/recovering-read.ts';
import type { InstallResult } from './install-codes.ts';

export const LEDGER_FILE = 'sandbox-packs-ledger.json';

export function ledgerPath(root: string): string {
  return path.join(root, LEDGER_FILE);
}

export function emptyLedger(registry: string): Ledger {
  return { format: LEDGER_FORMAT, registry, packs: {} };
}

function parseLedgerText(text: string): TextParse<Ledger> {
  return parseJsonText(text, (json) => {
    const parsed = LedgerSchema.safeParse(json);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: formatIssues(parsed.error.issues) };
  });
}

/** The ledger, `undefined` when the root has none (a plain tree), or a failure when it is damaged. */
export async function readLedger(root: string): Promise<InstallResult<Ledger | undefined>> {
  const file = ledgerPath(root);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail('root-unreadable', `The install ledger ${file} could not be read: ${(error as Error).message}`);
  }
  const parsed = parseLedgerText(text);
  if (parsed.ok) return ok(parsed.value);
  return fail(
    'invalid-data',
    `${file}: ${parsed.reason}. The install ledger is damaged; the next install, update or uninstall (or the app's next start) repairs it from its backup.`,
  );
}

export async function writeLedger(root: string, ledger: Ledger): Promise<void> {
  const checked = LedgerSchema.parse(ledger); // a ledger we cannot read back must never be written
  await writeFileDurably(ledgerPath(root), `${JSON.stringify(checked, null, 2)}\n`, { backup: (current) => parseLedgerText(current).ok });
}

export interface LedgerRepair {
  readonly ledger: Ledger | undefined;
  /** One sentence per repair made; empty when the ledger was fine (or absent). */
  readonly repaired: readonly string[];
  /** The ledger is the backup's generation: the caller records again what the tree holds beyond it. */
  readonly fromBackup: boolean;
}

/**
 * Under the root lock: the ledger, repaired if it is damaged — from its backup, or, when there is
 * no usable backup, by `rebuild` (what node_modules and the lockfile hold; see ledger-rebuild.ts).
 * The damaged file is always kept as a copy; the sentences say where.
 */
export async function repairLedger(
  root: string,
  rebuild: () => Promise<InstallResult<{ ledger: Ledger; summary: string }>>,
): Promise<InstallResult<LedgerRepair>> {
  const file = ledgerPath(root);
  let read;
  try {
    read = await readRecovering(file, 'The install ledger', parseLedgerText);
  } catch (error) {
    return fail('root-unreadable', `The install ledger ${file} could not be read: ${(error as Error).message}`);
  }
  if (read.state === 'missing') return ok({ ledger: undefined, repaired: [], fromBackup: false });
  if (read.state === 'ok') return ok({ ledger: read.value, repaired: [], fromBackup: false });
  if (read.state === 'restored') return ok({ ledger: read.value, repaired: [read.sentence], fromBackup: true });
  const rebuilt = await rebuild();
  if (!rebuilt.ok) return rebuilt;
  const aside = await keepDamagedCopy(file);
  await writeLedger(root, rebuilt.value.ledger);
  return ok({
    ledger: rebuilt.value.ledger,
    fromBackup: false,
    repaired: [
      `The install ledger ${LEDGER_FILE} was damaged (${read.reason}) and had no usable backup; the damaged copy was kept as ${path.basename(aside)}, and a new ledger was built from node_modules and the lockfile: ${rebuilt.value.summary}`,
    ],
  });
}
