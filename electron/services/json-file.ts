// Small JSON files the services own (settings, saved workflows): read back through zod like any
// other boundary, written durably (temp file, flushed, renamed in the same directory) so a crash
// or a power cut never leaves a half-written file, with the previous good generation kept as
// `<file>.bak`. A damaged file (cut short, hand-edited into something else) is repaired on read:
// copied aside as `<file>.damaged-<time>` and replaced by its backup. Without a backup, a garbled
// file (not JSON) is moved aside the same way so the caller starts from its default, while valid
// JSON that breaks the format stays where it is, reported (a hand edit to fix). Each repair comes
// with a sentence.

import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { formatIssues, parseWith } from '../../shared/protocol/parse.ts';
import type { Result } from '../../shared/protocol/result.ts';
import { keepDamagedCopy, writeFileDurably } from '../platform/durable-file.ts';
import { parseJsonText, readRecovering, type TextParse } from '../platform/recovering-read.ts';

/** The file's parsed content, `undefined` when it does not exist, `invalid-data` when it is damaged. Never repairs. */
export async function readJsonFile<S extends z.ZodType>(file: string, schema: S): Promise<Result<z.output<S> | undefined, 'invalid-data'>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, value: undefined };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, code: 'invalid-data', message: `${path.basename(file)}: (root): not valid JSON` };
  }
  return parseWith(schema, json, path.basename(file));
}

function parserFor<S extends z.ZodType>(schema: S): (text: string) => TextParse<z.output<S>> {
  return (text) =>
    parseJsonText(text, (json) => {
      const parsed = schema.safeParse(json);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: formatIssues(parsed.error.issues) };
    });
}

export interface RepairedRead<T> {
  /** The content (restored from the backup if need be); undefined when there is none (missing, or damaged without a backup). */
  readonly value: T | undefined;
  /** What was repaired, for the user; absent when the file was fine. */
  readonly repaired?: string;
  /** Valid JSON that breaks the format, with no backup to restore: left in place (a hand edit to fix), `file: key path: problem`. */
  readonly invalid?: string;
}

/**
 * Read `file`, repairing it when damaged (see the header). `label` names it for people
 * ("Settings", "The saved workflow \"x\""); `fallback` says what happens without a backup.
 */
export async function readJsonFileRepairing<S extends z.ZodType>(file: string, schema: S, label: string, fallback: string): Promise<RepairedRead<z.output<S>>> {
  const read = await readRecovering(file, label, parserFor(schema));
  if (read.state === 'missing') return { value: undefined };
  if (read.state === 'ok') return { value: read.value };
  if (read.state === 'restored') return { value: read.value, repaired: read.sentence };
  if (!read.garbled) return { value: undefined, invalid: `${path.basename(file)}: ${read.reason}` };
  const aside = await keepDamagedCopy(file);
  await rm(file, { force: true });
  return {
    value: undefined,
    repaired: `${label} ${path.basename(file)} was damaged (${read.reason}) and had no usable backup; it was moved to ${path.basename(aside)} in the same folder, and ${fallback}.`,
  };
}

/** Write `value` durably; the current file becomes the backup when it still passes `schema` (any JSON without one). */
export async function writeJsonFileAtomic(file: string, value: unknown, schema?: z.ZodType): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const good = schema ? parserFor(schema) : (text: string) => parseJsonText(text, (json) => ({ ok: true, value: json }));
  await writeFileDurably(file, `${JSON.stringify(value, null, 2)}\n`, { backup: (current) => good(current).ok });
}
