// A corpus smoke test in its three shapes — a Code node's code for the product (the pack's
// specifier), an ES module entry for bare quickjs-ng and for Node (the library's own specifier,
// the body wrapped in an async function whose outcome lands on a global) — and the one comparison
// of a returned value with the expected one (as JSON, ignoring key order), so every place that
// runs a smoke test judges it the same way.

import { LIB, type SmokeTest } from './libraries.ts';

/** The global a bare entry leaves its outcome on: `{ ok: true, json } | { ok: false, error }`. */
export const OUTCOME_GLOBAL = '__corpusOutcome';

function withSpecifier(imports: string, specifier: string): string {
  return imports.replaceAll(`from ${LIB}`, `from ${JSON.stringify(specifier)}`);
}

/** The Code node's code: the import lines, then the body. */
export function productCode(smoke: SmokeTest, specifier: string): string {
  return `${withSpecifier(smoke.imports, specifier)}\n${smoke.body}`;
}

/**
 * An ES module that imports the library and runs the body, leaving its outcome (the value as
 * JSON, or the error with its stack) on `globalThis[OUTCOME_GLOBAL]` once its promise settles.
 */
export function bareEntry(smoke: SmokeTest, specifier: string): string {
  return [
    withSpecifier(smoke.imports, specifier),
    `(async () => {\n${smoke.body}\n})().then(`,
    `  (value) => { globalThis.${OUTCOME_GLOBAL} = { ok: true, json: JSON.stringify(value === undefined ? null : value) }; },`,
    `  (error) => { globalThis.${OUTCOME_GLOBAL} = { ok: false, error: String(error) + (error && error.stack ? "\\n" + error.stack : "") }; },`,
    ');',
  ].join('\n');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** Whether `actual` (already JSON-shaped) is the expected value, ignoring key order. */
export function sameValue(actual: unknown, expected: unknown): boolean {
  return JSON.stringify(canonical(actual)) === JSON.stringify(canonical(JSON.parse(JSON.stringify(expected)) as unknown));
}

/** A value for a table cell or a message: JSON, cut to `max` characters. */
export function shortJson(value: unknown, max = 120): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
