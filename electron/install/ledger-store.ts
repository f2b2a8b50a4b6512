// Reading and writing the ledger file. Writes go to a temp file in the same directory and are
// renamed over the ledger, so a crash leaves either the old or the new ledger, never half of one.
// Reads parse from `unknown`: a damaged ledger is reported, not trusted.

import { readFile, rename, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { LedgerSchema, LEDGER_FORMAT, type Ledger } from '../../shared/protocol/ledger.ts';
import { parseWith } from '../../shared/protocol/parse.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';

export const LEDGER_FILE = 'sandbox-packs-ledger.json';

export function ledgerPath(root: string): string {
  return path.join(root, LEDGER_FILE);
}

export function emptyLedger(registry: string): Ledger {
  return { format: LEDGER_FORMAT, registry, packs: {} };
}

/** The ledger, `undefined` when the root has none (a plain tree), or a failure when it is damaged. */
export async function readLedger(root: string): Promise<Result<Ledger | undefined>> {
  const file = ledgerPath(root);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail('root-unreadable', `The install ledger ${file} could not be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('invalid-data', `${file}: not valid JSON`);
  }
  return parseWith(LedgerSchema, json, file);
}

export async function writeLedger(root: string, ledger: Ledger): Promise<void> {
  const checked = LedgerSchema.parse(ledger); // a ledger we cannot read back must never be written
  const file = ledgerPath(root);
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(checked, null, 2)}\n`);
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
}
