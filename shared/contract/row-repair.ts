// The mechanism that makes list answers total. A list answer (every module, every pack, every
// search hit) is only as good as its worst row: one row that breaks its schema used to fail the
// whole answer, and with it every face. Given the lists a method declares (answer-lists.ts), a
// value that failed its schema is repaired row by row: a row's own lists first, then the row is
// judged again; a row that still fails is replaced by its stand-in (a row saying why it cannot be
// shown) or left out; a list past its count keeps what fits. Rows that pass are kept as they are,
// so a sound answer is never changed. Pure, and only ever run on an answer that already failed.

import type { z } from 'zod';
import { formatIssues } from '../protocol/parse.ts';

/** One list in an answer whose rows may be stood in for or left out, one at a time. */
export interface RowList {
  /** Object keys from the enclosing value down to the array. */
  readonly path: readonly string[];
  /** The schema each row must pass. */
  readonly row: z.ZodType;
  /** Lists inside each row, repaired before the row is judged again. */
  readonly lists?: readonly RowList[];
  /** A row saying why `row` cannot be shown, built from what of it is sound; undefined leaves the row out. */
  readonly standIn?: (row: unknown, problem: string) => unknown;
  /** Most rows the answer schema allows here (the same constant the schema reads). */
  readonly max?: number;
  /** The last row of a list cut to `max`: says how many more there were. Without it the list is cut at `max`. */
  readonly overflow?: (left: number) => unknown;
}

export interface RowRepair {
  readonly value: unknown;
  /** One line per row stood in for or left out, and per list cut, for the log. */
  readonly notes: readonly string[];
}

const MAX_PROBLEM = 500;

export function repairRows(value: unknown, lists: readonly RowList[]): RowRepair {
  const notes: string[] = [];
  return { value: repairIn(value, lists, notes, 'value'), notes };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function repairIn(value: unknown, lists: readonly RowList[], notes: string[], where: string): unknown {
  let out = value;
  for (const list of lists) out = replaceAt(out, list.path, (rows) => repairList(rows, list, notes, [where, ...list.path].join('.')));
  return out;
}

function replaceAt(value: unknown, path: readonly string[], change: (value: unknown) => unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return change(value);
  if (!isRecord(value) || !Object.hasOwn(value, key)) return value;
  return { ...value, [key]: replaceAt(value[key], rest, change) };
}

function repairList(rows: unknown, list: RowList, notes: string[], where: string): unknown {
  if (!Array.isArray(rows)) return rows;
  const out: unknown[] = [];
  for (const [index, raw] of rows.entries()) {
    let row: unknown = raw;
    let parsed = list.row.safeParse(row);
    if (!parsed.success && list.lists && isRecord(raw)) {
      row = repairIn(raw, list.lists, notes, `${where}.${index}`);
      parsed = list.row.safeParse(row);
    }
    if (parsed.success) {
      out.push(row);
      continue;
    }
    const problem = formatIssues(parsed.error.issues).slice(0, MAX_PROBLEM);
    const standIn = list.standIn?.(row, problem);
    if (standIn !== undefined && list.row.safeParse(standIn).success) {
      out.push(standIn);
      notes.push(`${where}.${index} was stood in for (${problem})`);
    } else {
      notes.push(`${where}.${index} was left out (${problem})`);
    }
  }
  if (list.max === undefined || out.length <= list.max) return out;
  const overflow = list.overflow?.(out.length - list.max + 1);
  const fits = overflow !== undefined && list.row.safeParse(overflow).success;
  notes.push(`${where} had ${out.length} rows; at most ${list.max} are answered`);
  return fits ? [...out.slice(0, list.max - 1), overflow] : out.slice(0, list.max);
}
