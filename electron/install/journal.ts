// The install journal: an intent record written (durably) under the root lock before an operation
// changes anything, and removed once it has finished. It names the operation and its target and
// keeps what a rollback needs: the root's package.json and package-lock.json as they were (npm
// rewrites both in place, so a process killed while npm writes them can leave them cut short) and
// the ledger's records as they were (so recovery can tell whether the operation had recorded its
// result). A journal found at the next start belongs to a process that died mid-way; recovery.ts
// rolls its operation back or finishes it, under the lock, before anything else runs.

import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PackRecordSchema, type Ledger } from '../../shared/protocol/ledger.ts';
import { PackageNameSchema } from '../../shared/protocol/manifest.ts';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { writeFileDurably } from '../platform/durable-file.ts';
import { parseJsonText, type TextParse } from '../platform/recovering-read.ts';
import { rootPaths } from './npm-root.ts';

export const JOURNAL_FILE = '.sandbox-packs-journal.json';

export const JOURNAL_OPERATIONS = ['install', 'update', 'uninstall', 'trust', 'rebuild', 'reconcile', 'first-run', 'decide-use'] as const;
export type JournalOperation = (typeof JOURNAL_OPERATIONS)[number];

const JournalSchema = z
  .object({
    format: z.literal(1),
    operation: z.enum(JOURNAL_OPERATIONS),
    /** The spec (install) or pack name (the others) the operation was called with. */
    target: z.string().max(4096),
    pid: z.number().int(),
    startedAt: z.iso.datetime(),
    /** The ledger's records when the operation started. */
    packs: z.record(PackageNameSchema, PackRecordSchema),
    /** The root's files as they were; null when the file did not exist, false when it could not be read (recovery leaves it alone). */
    packageJson: z.union([z.string(), z.null(), z.literal(false)]),
    lockfile: z.union([z.string(), z.null(), z.literal(false)]),
  })
  .strict();
export type Journal = z.infer<typeof JournalSchema>;

export function journalPath(root: string): string {
  return path.join(root, JOURNAL_FILE);
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A root file's text for the journal; an unreadable one (a folder in its place, no permission) is the operation's own failure to report. */
async function savedText(file: string): Promise<string | null | false> {
  try {
    return await readOptional(file);
  } catch {
    return false;
  }
}

/** Write the intent record; replaces a finished operation's (there is one journal per root, held under the lock). */
export async function beginJournal(root: string, operation: JournalOperation, target: string, ledger: Ledger): Promise<void> {
  const p = rootPaths(root);
  const journal: Journal = {
    format: 1,
    operation,
    target,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    packs: ledger.packs,
    packageJson: await savedText(p.packageJson),
    lockfile: await savedText(p.lockfile),
  };
  await writeFileDurably(journalPath(root), JSON.stringify(JournalSchema.parse(journal)));
}

export async function clearJournal(root: string): Promise<void> {
  await rm(journalPath(root), { force: true });
}

function parseJournalText(text: string): TextParse<Journal> {
  return parseJsonText(text, (json) => {
    const parsed = JournalSchema.safeParse(json);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: formatIssues(parsed.error.issues) };
  });
}

export type PendingJournal =
  { readonly state: 'none' } | { readonly state: 'pending'; readonly journal: Journal } | { readonly state: 'unreadable'; readonly reason: string };

/** The journal an interrupted operation left, if any. It is written atomically, so an unreadable one was damaged some other way. */
export async function readJournal(root: string): Promise<PendingJournal> {
  const text = await readOptional(journalPath(root));
  if (text === null) return { state: 'none' };
  const parsed = parseJournalText(text);
  return parsed.ok ? { state: 'pending', journal: parsed.value } : { state: 'unreadable', reason: parsed.reason };
}
