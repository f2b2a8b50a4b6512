// How a run's result is shown without freezing the page: the guest may return anything up to its
// memory limit (a 20,000,000-character string, 200,000 rows), and rendering all of it took the
// page seconds and made it millions of pixels tall. So a result is classified once — small
// (shown whole, as before), a long string (its head, then more on request), rows (an array of
// plain objects: a paged table) or a large other value (a collapsible tree) — and every view of
// it renders a bounded slice. Pure functions, so the bounds are tested without a DOM.

/** JSON text up to this long is shown whole, as it always was. */
export const SMALL_RESULT_CHARS = 10_000;
/** Characters of a long string shown at first and added by each "Show more". */
export const STRING_STEP = 10_000;
/** Rows of the table per page. */
export const ROWS_PER_PAGE = 50;
/** Columns of the table: the keys of the first rows, in order of appearance, at most this many. */
export const MAX_COLUMNS = 12;
/** Entries of one object or array in the tree shown at a time ("Show 100 more"). */
export const TREE_STEP = 100;
/** Characters of one table cell or tree leaf. */
export const CELL_CHARS = 200;

export type ResultShape =
  | { readonly kind: 'small'; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'rows'; readonly rows: readonly Record<string, unknown>[]; readonly columns: readonly string[] }
  | { readonly kind: 'tree'; readonly value: object };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON text of a value, or undefined once it passes `max` characters (a huge value is never stringified just to be measured). */
function boundedJson(value: unknown, max: number): string | undefined {
  if (typeof value === 'string') return value.length + 2 > max ? undefined : JSON.stringify(value);
  if (Array.isArray(value) && value.length > max) return undefined;
  if (isPlainObject(value) && Object.keys(value).length > max) return undefined;
  const text = JSON.stringify(value, null, 2);
  return text.length > max ? undefined : text;
}

export function resultShape(value: unknown): ResultShape {
  if (value === undefined) return { kind: 'small', text: 'undefined' };
  const small = boundedJson(value, SMALL_RESULT_CHARS);
  if (small !== undefined) return { kind: 'small', text: small };
  if (typeof value === 'string') return { kind: 'string', value };
  if (Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) return { kind: 'rows', rows: value, columns: columnsOf(value) };
  if (typeof value === 'object' && value !== null) return { kind: 'tree', value };
  return { kind: 'small', text: String(value) };
}

function columnsOf(rows: readonly Record<string, unknown>[]): string[] {
  const columns: string[] = [];
  for (const row of rows.slice(0, ROWS_PER_PAGE)) {
    for (const key of Object.keys(row)) if (!columns.includes(key) && columns.length < MAX_COLUMNS) columns.push(key);
  }
  return columns;
}

/** The first `count` characters, never ending inside a surrogate pair. */
export function stringHead(value: string, count: number): string {
  if (count >= value.length) return value;
  const code = value.charCodeAt(count - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? count - 1 : count);
}

/** A cell or a leaf: strings as they are, everything else as compact JSON, cut at CELL_CHARS. */
export function cellText(value: unknown): string {
  const text =
    typeof value === 'string' ? value : value === undefined ? '' : (boundedJson(value, CELL_CHARS * 4)?.replace(/\s*\n\s*/g, ' ') ?? summaryOf(value));
  return text.length > CELL_CHARS ? `${stringHead(text, CELL_CHARS)}…` : text;
}

/** `Array(200,000)` / `Object(5,000 keys)` — what a collapsed node of the tree says it holds. */
export function summaryOf(value: unknown): string {
  if (Array.isArray(value)) return `Array(${count(value.length)})`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).length;
    return `Object(${count(keys)} ${keys === 1 ? 'key' : 'keys'})`;
  }
  return cellText(value);
}

export const count = (n: number): string => n.toLocaleString('en-US');

/** "20,000,000 characters", "200,000 rows · 6.9 MB as JSON". */
export function sizeText(shape: ResultShape, jsonBytes: number | undefined): string {
  const bytes = jsonBytes === undefined ? '' : `${formatSize(jsonBytes)} as JSON`;
  if (shape.kind === 'string') return `String of ${count(shape.value.length)} characters`;
  if (shape.kind === 'rows') return [`${count(shape.rows.length)} rows`, bytes].filter((t) => t !== '').join(' · ');
  if (shape.kind === 'tree')
    return [Array.isArray(shape.value) ? `Array of ${count(shape.value.length)} items` : `Object of ${count(Object.keys(shape.value).length)} keys`, bytes]
      .filter((t) => t !== '')
      .join(' · ');
  return `${count(shape.text.length)} characters`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The page of rows starting at `start`, and the label "Rows 51–100 of 200,000". */
export function rowPage(total: number, start: number): { readonly start: number; readonly end: number; readonly label: string } {
  const last = Math.max(0, Math.floor((total - 1) / ROWS_PER_PAGE) * ROWS_PER_PAGE);
  const from = Math.min(Math.max(0, start), last);
  const end = Math.min(total, from + ROWS_PER_PAGE);
  return { start: from, end, label: `Rows ${count(from + 1)}–${count(end)} of ${count(total)}` };
}

/** What "Download the whole result" saves: a string as text, anything else as JSON. */
export function downloadOf(value: unknown): { readonly text: string; readonly extension: 'txt' | 'json'; readonly type: string } {
  if (typeof value === 'string') return { text: value, extension: 'txt', type: 'text/plain;charset=utf-8' };
  return { text: JSON.stringify(value, null, 2) ?? 'null', extension: 'json', type: 'application/json' };
}
