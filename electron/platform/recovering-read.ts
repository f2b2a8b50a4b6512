// Reading one of the app's own files that `writeFileDurably` keeps a backup of, and repairing it
// when it is damaged (truncated, not JSON, not the schema): the damaged file is copied aside as
// `<file>.damaged-<time>` (never deleted), and the backup — the previous good generation — is put
// back in its place. Without a usable backup the caller decides what replaces it (defaults, or a
// ledger rebuilt from the tree). Every outcome carries what a person is told about it.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { BACKUP_SUFFIX, keepDamagedCopy, writeFileDurably } from './durable-file.ts';

/** A parse of the file's text: the value, or why it is not one; `garbled` when the text is not even JSON (cut short, overwritten). */
export type TextParse<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string; readonly garbled?: boolean };

export type RecoveredRead<T> =
  | { readonly state: 'missing' }
  | { readonly state: 'ok'; readonly value: T }
  /** The damaged file was replaced by its backup; `sentence` says so. */
  | { readonly state: 'restored'; readonly value: T; readonly aside: string; readonly reason: string; readonly sentence: string }
  /** Damaged, and no usable backup: nothing was done; the caller decides (see keepDamagedCopy). */
  | { readonly state: 'damaged'; readonly reason: string; readonly garbled: boolean };

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** JSON text through a schema-like parser: the shape every caller here needs. */
export function parseJsonText<T>(text: string, check: (json: unknown) => TextParse<T>): TextParse<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, garbled: true, reason: text.trim() === '' ? 'the file is empty' : 'not valid JSON (cut short or overwritten)' };
  }
  return check(json);
}

/**
 * Read `file`; when it is damaged, keep a copy aside and put its backup back. `label` names the
 * file for people ("The install ledger", "Settings"). Other read errors (permissions) are thrown.
 */
export async function readRecovering<T>(file: string, label: string, parse: (text: string) => TextParse<T>): Promise<RecoveredRead<T>> {
  const text = await readText(file);
  if (text === undefined) return { state: 'missing' };
  const parsed = parse(text);
  if (parsed.ok) return { state: 'ok', value: parsed.value };
  const backupFile = `${file}${BACKUP_SUFFIX}`;
  const backupText = await readText(backupFile);
  const backup = backupText === undefined ? undefined : parse(backupText);
  if (backupText === undefined || !backup?.ok) return { state: 'damaged', reason: parsed.reason, garbled: parsed.garbled === true };
  const savedAt = (await stat(backupFile)).mtime.toISOString();
  const aside = await keepDamagedCopy(file);
  await writeFileDurably(file, backupText);
  return {
    state: 'restored',
    value: backup.value,
    aside,
    reason: parsed.reason,
    sentence: `${label} ${path.basename(file)} was damaged (${parsed.reason}); it was restored from its backup of ${savedAt}, and the damaged copy was kept as ${path.basename(aside)}.`,
  };
}
